/* Kiln runtime: load a compiled plan, bind its weights and run tokens on Vulkan.
 *
 * Plain C, opaque handles. Conventions (docs/runtime.md):
 *  - Every call that can fail returns a kiln_status_t: NULL means success; otherwise the
 *    caller owns the status, reads kiln_status_code()/kiln_status_message() and frees it
 *    with kiln_status_free().
 *  - Objects are made by kiln_X_create/_load functions that hand the object back through a
 *    final out_ parameter (untouched on failure) and freed with kiln_X_release().
 *    Handles are reference-counted: a session keeps its plan alive and a plan its
 *    instance, so any release order is safe.
 *  - Options structs are filled with defaults by kiln_X_options_init(); fields are only
 *    ever added at the end.
 *  - Nothing here exits, aborts or throws.
 */
#ifndef KILN_RUNTIME_H
#define KILN_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------ status ------------------------------===*/

/* The short, fixed list of failure kinds. */
typedef enum kiln_status_code_e {
  KILN_STATUS_OK = 0,
  KILN_STATUS_INVALID_ARGUMENT = 1,   /* bad argument, corrupt plan, mismatched weights */
  KILN_STATUS_NOT_FOUND = 2,          /* a file, a device, a tensor that does not exist */
  KILN_STATUS_OUT_OF_RANGE = 3,       /* an index/position/size past its limit */
  KILN_STATUS_RESOURCE_EXHAUSTED = 4, /* out of host or device memory */
  KILN_STATUS_FAILED_PRECONDITION = 5,/* the object is not in a state for the call */
  KILN_STATUS_UNAVAILABLE = 6,        /* no device, or a feature the device lacks */
  KILN_STATUS_INTERNAL = 7            /* a Vulkan failure such as device lost */
} kiln_status_code_t;

/* NULL = OK. Thread safety: a status is owned by one thread at a time. */
typedef struct kiln_status_s* kiln_status_t;

kiln_status_code_t kiln_status_code(kiln_status_t status);
/* The message ("plan kernels[4].bindings[2]: buffer 17 out of range ..."); "" for OK.
 * Valid until kiln_status_free. */
const char* kiln_status_message(kiln_status_t status);
/* "OK", "INVALID_ARGUMENT", ... */
const char* kiln_status_code_name(kiln_status_code_t code);
void kiln_status_free(kiln_status_t status);

/*===------------------------------ devices -----------------------------===*/

typedef enum kiln_device_type_e {
  KILN_DEVICE_TYPE_OTHER = 0,
  KILN_DEVICE_TYPE_INTEGRATED_GPU = 1,
  KILN_DEVICE_TYPE_DISCRETE_GPU = 2,
  KILN_DEVICE_TYPE_VIRTUAL_GPU = 3,
  KILN_DEVICE_TYPE_CPU = 4
} kiln_device_type_t;

typedef struct kiln_device_info_t {
  uint32_t index;                /* position in the Vulkan enumeration */
  char name[256];
  kiln_device_type_t type;
  uint32_t vendor_id;
  uint32_t api_version;          /* VK_MAKE_API_VERSION encoding */
  uint32_t subgroup_size;
  uint32_t max_workgroup_invocations;
  uint32_t max_workgroup_size[3];
  uint32_t max_push_constant_bytes;
  uint64_t device_local_bytes;   /* largest device-local heap */
  uint32_t conditional_rendering; /* 1: VK_EXT_conditional_rendering is offered (a stop token
                                     skips the rest of a submission on the device) */
} kiln_device_info_t;

/* Lists the Vulkan devices: writes up to `capacity` entries into `out_devices` (may be
 * NULL when capacity is 0) and the total into *out_count. */
kiln_status_t kiln_enumerate_devices(kiln_device_info_t* out_devices, size_t capacity,
                                     size_t* out_count);

/*===------------------------------ instance ----------------------------===*/

/* The loaded Vulkan driver, the chosen device and its compute queue.
 * Thread safety: thread-safe (immutable after creation). */
typedef struct kiln_instance_s kiln_instance_t;

typedef struct kiln_instance_options_t {
  /* Device choice, first match wins: device_index (>= 0), device_name (substring, case
   * sensitive), then env KILN_DEVICE (an index, or a name substring), then the first
   * discrete GPU, then integrated/virtual/other GPUs, then CPU devices (lavapipe) last. */
  int32_t device_index;       /* -1 = not set */
  const char* device_name;    /* NULL = not set; copied */
  int32_t enable_validation;  /* 1 = enable VK_LAYER_KHRONOS_validation when present */
} kiln_instance_options_t;

void kiln_instance_options_init(kiln_instance_options_t* options);
kiln_status_t kiln_instance_create(const kiln_instance_options_t* options,
                                   kiln_instance_t** out_instance);
kiln_status_t kiln_instance_device_info(const kiln_instance_t* instance,
                                        kiln_device_info_t* out_info);
void kiln_instance_retain(kiln_instance_t* instance);
void kiln_instance_release(kiln_instance_t* instance);

/*===------------------------------ plan --------------------------------===*/

/* A verified plan (schemas/plan.fbs, docs/plan.md). Loading checks the file's structure,
 * its schema version, and its meaning against the instance's device; a failure names the
 * bad entry. Thread safety: read-only and shareable across threads once loaded. */
typedef struct kiln_plan_s kiln_plan_t;

kiln_status_t kiln_plan_load_file(kiln_instance_t* instance, const char* path,
                                  kiln_plan_t** out_plan);
/* Copies `size` bytes from `data`. */
kiln_status_t kiln_plan_load_memory(kiln_instance_t* instance, const void* data,
                                    size_t size, kiln_plan_t** out_plan);

typedef struct kiln_plan_info_t {
  const char* model_family;   /* valid while the plan lives */
  uint32_t vocab_size;
  uint32_t max_position;
  uint32_t kernel_count;
  uint32_t buffer_count;
  uint32_t weight_count;
  uint32_t prefill_max_rows;  /* 0 when the plan has no "prefill" program */
} kiln_plan_info_t;

kiln_status_t kiln_plan_info(const kiln_plan_t* plan, kiln_plan_info_t* out_info);
void kiln_plan_retain(kiln_plan_t* plan);
void kiln_plan_release(kiln_plan_t* plan);

/*===------------------------------ session -----------------------------===*/

/* One decoding stream: device buffers, weights, pipelines, recorded command buffers,
 * position and sampler. Thread safety: one thread at a time (calls must not overlap);
 * different sessions may run on different threads.
 * A failed Vulkan call marks the session failed: every later call returns that status. */
typedef struct kiln_session_s kiln_session_t;

/* How the host waits for the device to finish a call. Polling saves the driver's sleep
 * and wake-up (0.5-0.6 ms a token on an H200, docs/performance.md) at the price of a busy
 * host core, which a CPU device needs for itself. */
typedef enum kiln_wait_mode_t {
  KILN_WAIT_AUTO = 0,  /* poll on a GPU, block on a CPU device */
  KILN_WAIT_POLL = 1,  /* poll the fence (a busy host thread) */
  KILN_WAIT_BLOCK = 2, /* block in the driver */
} kiln_wait_mode_t;
/* Whether the session bounds every indexed access of the plan's kernels (SPIRV-Tools'
 * robust access pass, at session creation): a kernel that indexes past one of its arrays,
 * workgroup memory included, then stays inside it. On a CPU device a kernel runs inside
 * the host process, so an untrusted plan's stray index is a host memory access; on a GPU
 * it is the device's fault, reported as a lost device. The clamps cost arithmetic on
 * every access. */
typedef enum kiln_robust_mode_t {
  KILN_ROBUST_AUTO = 0, /* bound on a CPU device, not on a GPU */
  KILN_ROBUST_ON = 1,   /* always bound */
  KILN_ROBUST_OFF = 2,  /* never bound (the plan is trusted) */
} kiln_robust_mode_t;
/* Progress of long work: `done` of `total` bytes. Called on the thread that made the call,
 * between pieces of the work (so a slow callback slows it). */
typedef void (*kiln_progress_fn_t)(void* user_data, uint64_t done_bytes, uint64_t total_bytes);

typedef struct kiln_session_options_t {
  const char* weights_path;   /* safetensors file (required); copied */
  float temperature;          /* 0 = greedy (default) */
  float top_p;                /* nucleus mass in (0, 1]; default 1 */
  uint64_t seed;              /* sampler seed (splitmix64); default 0 */
  float head_gate;            /* log-prob gate for plans with a gated head; default -inf */
  int32_t enable_profiling;   /* 1 = GPU timestamps around every dispatch */
  int32_t skip_weight_check;  /* 1 = do not scan the weights for NaN/Inf at load (faster);
                                 default 0: a non-finite weight is INVALID_ARGUMENT */
  kiln_wait_mode_t wait_mode; /* how the host waits for each call; default AUTO */
  kiln_robust_mode_t robust_kernels; /* bound the kernels' indexed accesses; default AUTO */
  uint32_t tokens_per_submit; /* kiln_session_generate: steps one submission may run
                                 when the plan picks on the device; default 16; 0 or
                                 1 = a submission per greedy token */
  /* Weight upload progress (NULL = none, the default): the plan's weights as the file
   * stores them, reported after each tensor and last with done == total once on the
   * device. */
  kiln_progress_fn_t upload_progress;
  void* upload_progress_user_data;
  /* Plans with a gated head (sampling.head_gate SessionOption, Embryo): the head keeps
   * the smallest set of clusters, by mass, that reaches head_top_p (every tie at the
   * edge too), decided on the device each step; in (0, 1], default 1 = every cluster.
   * It applies together with head_gate (a cluster must pass both). */
  float head_top_p;
  /* With enable_profiling: time the dispatches of the plan's "prefill" program (its
   * calls of kiln_session_prefill) instead of the decode program's; a plan without
   * one is INVALID_ARGUMENT. Default 0. */
  int32_t profile_prefill;
} kiln_session_options_t;

void kiln_session_options_init(kiln_session_options_t* options);
kiln_status_t kiln_session_create(kiln_plan_t* plan, const kiln_session_options_t* options,
                                  kiln_session_t** out_session);
void kiln_session_release(kiln_session_t* session);

typedef struct kiln_step_result_t {
  int32_t token;     /* the sampled next token */
  float logprob;     /* its log-probability under the model (before temperature) */
} kiln_step_result_t;

/* Feeds `count` tokens at the next positions (with the plan's "prefill" program in calls
 * of up to its max_rows rows, else one "decode" call per token), then samples the token
 * that follows the last one into *out_result (may be NULL). */
kiln_status_t kiln_session_prefill(kiln_session_t* session, const int32_t* tokens,
                                   size_t count, kiln_step_result_t* out_result);
/* Feeds one token at the next position and samples the following token. */
kiln_status_t kiln_session_step(kiln_session_t* session, int32_t token,
                                kiln_step_result_t* out_result);
/* Feeds `token`, then each token it picks, `count` steps in all: out_results[i] is the
 * token picked after step i (what kiln_session_step would return; the last one is not
 * fed). With a plan whose decode program picks on the device, it runs up to
 * `tokens_per_submit` steps a submission (greedy, and at a temperature above 0 when
 * the device draws), the device feeding each pick to the next step; otherwise one
 * kiln_session_step a token. Every step of a submission runs: for a stop token use
 * kiln_session_generate_until. Afterwards kiln_session_read_logprobs gives the last
 * step's log-probabilities. */
kiln_status_t kiln_session_generate(kiln_session_t* session, int32_t token, size_t count,
                                    kiln_step_result_t* out_results);
/* kiln_session_generate that ends after the step picking `stop_token` (in [0, vocab),
 * else OUT_OF_RANGE): *out_count steps ran (<= count), the last one picked stop_token
 * unless *out_count == count. The session stands after them, as if only those steps
 * had run: on a device with VK_EXT_conditional_rendering the steps of a submission
 * after the stop dispatch nothing; elsewhere it runs one step a submission. */
kiln_status_t kiln_session_generate_until(kiln_session_t* session, int32_t token, size_t count,
                                          int32_t stop_token, kiln_step_result_t* out_results,
                                          size_t* out_count);
/* Copies the first `count` (<= vocab) log-probabilities of the last call. */
kiln_status_t kiln_session_read_logprobs(kiln_session_t* session, float* out_values,
                                         size_t count);
/* Changes the sampler's temperature (0 = greedy) and top_p for later calls; the same
 * checks as kiln_session_create's options (INVALID_ARGUMENT, the session unchanged). */
kiln_status_t kiln_session_set_sampling(kiln_session_t* session, float temperature,
                                        float top_p);
/* Back to position 0: state buffers zeroed, sampler reseeded, stats kept. A failed
 * session stays failed. */
kiln_status_t kiln_session_reset(kiln_session_t* session);
/* The position the next token will take. */
uint32_t kiln_session_position(const kiln_session_t* session);
/* A benchmark start: the next token takes `position` (< the plan's max_position, else
 * OUT_OF_RANGE), over whatever state the session holds (zeroed after create or reset).
 * Every kernel then reads what a long session at that position reads (a full window of
 * zero keys and values, the far field sealed from the first row), so per-token cost can
 * be measured at position 30,000 without feeding 30,000 rows; the tokens that follow are
 * not the model's. */
kiln_status_t kiln_session_seek(kiln_session_t* session, uint32_t position);

typedef struct kiln_session_stats_t {
  uint32_t dispatches_per_token;   /* of the "decode" program */
  uint32_t barriers_per_token;     /* pipeline barriers recorded in "decode" */
  uint64_t bytes_per_token;        /* the plan's estimate (or the sum of bound ranges) */
  uint64_t tokens;                 /* tokens fed since creation */
  uint64_t calls;                  /* program submissions since creation */
  double total_ms;                 /* host wall time inside submissions */
  double ms_per_token;             /* total_ms / tokens */
  double gpu_span_ms_per_call;     /* profiling on: GPU time from the first dispatch's start to
                                      the last one's end (barriers and gaps included), mean
                                      over profiled calls (the first left out once another
                                      has run); else 0 */
  uint64_t prefill_tokens;         /* tokens fed by kiln_session_prefill */
  double prefill_ms;               /* host wall time inside its submissions */
  uint64_t decode_tokens;          /* tokens fed by kiln_session_step */
  double decode_ms;                /* host wall time inside its submissions */
  double decode_submit_ms;         /* of decode_ms, the time inside vkQueueSubmit */
  uint64_t decode_calls;           /* submissions of step/generate (fewer than decode_tokens
                                      when generate runs many tokens a submission) */
  double decode_gpu_ms_per_call;   /* profiling off: GPU time of a whole decode call (two
                                      timestamps around it), mean over decode calls; else 0 */
} kiln_session_stats_t;

kiln_status_t kiln_session_stats(const kiln_session_t* session,
                                 kiln_session_stats_t* out_stats);

typedef struct kiln_dispatch_profile_t {
  const char* label;   /* the dispatch's label, else the kernel's name; valid while the
                          session lives */
  uint32_t kernel;     /* kernel index */
  uint64_t calls;      /* profiled submissions: the session's first (a warm-up: pipelines
                          still compiling, clocks ramping) is left out once another has
                          run */
  double total_ms;     /* summed GPU time */
  double estimated_us; /* the compiler's estimate per call (plan), negative = none */
} kiln_dispatch_profile_t;

/* Per-dispatch GPU time of the "decode" program (profiling enabled): writes up to
 * `capacity` entries and the total into *out_count. */
kiln_status_t kiln_session_profile(const kiln_session_t* session,
                                   kiln_dispatch_profile_t* out_entries, size_t capacity,
                                   size_t* out_count);

typedef struct kiln_kernel_timing_t {
  const char* kernel_name; /* valid while the session lives */
  const char* label;       /* the label of the kernel's first dispatch, else its name */
  uint32_t kernel;         /* kernel index */
  uint32_t dispatches;     /* dispatches of the "decode" program that run this kernel */
  uint64_t bound_bytes;    /* the first dispatch's bound ranges: an upper bound of the
                              bytes it reads and writes */
  double min_us;           /* GPU time of the fastest run */
  double median_us;        /* GPU time of the median run */
  double estimated_us;     /* the compiler's estimate of that dispatch (kernel + boundary),
                              negative = none */
} kiln_kernel_timing_t;

/* Times each distinct kernel of the "decode" program alone (kiln-bench kernels): the
 * kernel's first dispatch, `repetitions` runs (1..1000), each after `flush_bytes` bytes
 * written to a scratch buffer of the device (0 = no flush; at least twice the last-level
 * cache evicts it) and a barrier, with a timestamp pair around the dispatch alone. The
 * kernels read whatever the buffers hold: run a step first so that they hold a token's
 * values. The state the kernels write is then not a model's: reset the session before
 * decoding again. Writes up to `capacity` entries in program order of first use and
 * their number into *out_count. Every call times the kernels anew: size `out_entries`
 * by kiln_plan_info's kernel_count (an upper bound) rather than calling twice.
 * UNAVAILABLE without device timestamps. */
kiln_status_t kiln_session_time_kernels(kiln_session_t* session, uint32_t repetitions,
                                        uint64_t flush_bytes, kiln_kernel_timing_t* out_entries,
                                        size_t capacity, size_t* out_count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_H */
