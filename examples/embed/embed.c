/* embed: a program that embeds Kiln's runtime through its installed package
 * (README, "Use it from C").
 *
 *   embed MODEL.kplan WEIGHTS.safetensors [PROMPT [N]]
 *
 * Loads the plan, binds its weights, feeds PROMPT (comma-separated token ids, default
 * 1,2,3), generates N tokens greedily (default 16) and prints them comma-separated, as
 * kiln-run's first line. Every call's status is checked; a failure is printed once with a
 * hint for its code, and the program exits 1. */
#include <kiln/runtime.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxPrompt = 1024 };

static const char *hint(kiln_status_code_t code) {
  switch (code) {
  case KILN_STATUS_OK: return "";
  case KILN_STATUS_INVALID_ARGUMENT: return "is the file a plan, and the weights the plan's?";
  case KILN_STATUS_NOT_FOUND: return "check the path (or the device asked for)";
  case KILN_STATUS_OUT_OF_RANGE: return "a token id past the vocabulary, or past max_position";
  case KILN_STATUS_RESOURCE_EXHAUSTED: return "out of host or device memory";
  case KILN_STATUS_FAILED_PRECONDITION: return "a call out of order";
  case KILN_STATUS_UNAVAILABLE: return "no Vulkan device (Debian: mesa-vulkan-drivers)";
  case KILN_STATUS_INTERNAL: return "a Vulkan failure";
  }
  return "";
}

/* 0 for success; else prints the status, frees it and returns 1. */
static int failed(kiln_status_t status, const char *what) {
  if (!status)
    return 0;
  kiln_status_code_t code = kiln_status_code(status);
  fprintf(stderr, "embed: %s: %s: %s (%s)\n", what, kiln_status_code_name(code),
          kiln_status_message(status), hint(code));
  kiln_status_free(status);
  return 1;
}

/* Comma-separated token ids into `tokens`; the count, or 0 when the text is not that. */
static size_t parse_prompt(const char *text, int32_t *tokens) {
  size_t count = 0;
  while (count < kMaxPrompt) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || value < 0 || value > INT32_MAX || (*end && *end != ','))
      return 0;
    tokens[count++] = (int32_t)value;
    if (!*end)
      return count;
    text = end + 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 5) {
    fprintf(stderr, "usage: embed MODEL.kplan WEIGHTS.safetensors [PROMPT [N]]\n");
    return 2;
  }
  static int32_t prompt[kMaxPrompt];
  size_t prompt_size = parse_prompt(argc > 3 ? argv[3] : "1,2,3", prompt);
  char *end = NULL;
  long n = argc > 4 ? strtol(argv[4], &end, 10) : 16;
  if (!prompt_size || n < 1 || (end && *end)) {
    fprintf(stderr, "embed: PROMPT must be token ids like 1,2,3 and N an integer >= 1\n");
    return 2;
  }

  kiln_instance_t *instance = NULL;
  kiln_plan_t *plan = NULL;
  kiln_session_t *session = NULL;
  int status = 0;

  /* The device: env KILN_DEVICE, else a GPU before a CPU device (lavapipe). */
  kiln_instance_options_t instance_options;
  kiln_instance_options_init(&instance_options);
  status = failed(kiln_instance_create(&instance_options, &instance), "instance");
  if (!status)
    status = failed(kiln_plan_load_file(instance, argv[1], &plan), "plan");
  if (!status) {
    kiln_session_options_t options;
    kiln_session_options_init(&options); /* greedy */
    options.weights_path = argv[2];
    status = failed(kiln_session_create(plan, &options, &session), "session");
  }
  if (!status) {
    kiln_step_result_t next;
    status = failed(kiln_session_prefill(session, prompt, prompt_size, &next), "prefill");
    for (long i = 0; !status && i < n; ++i) {
      printf(i ? ",%d" : "%d", next.token);
      if (i + 1 < n)
        status = failed(kiln_session_step(session, next.token, &next), "step");
    }
    printf("\n");
  }

  /* Handles are reference-counted: any order is safe, and NULL is ignored. */
  kiln_session_release(session);
  kiln_plan_release(plan);
  kiln_instance_release(instance);
  return status;
}
