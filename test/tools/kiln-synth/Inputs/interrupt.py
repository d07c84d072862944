"""Starts kiln-synth on a config big enough to take seconds, interrupts it with
SIGINT once its temporary file exists, and checks that it exits with 130 and
leaves neither the output nor the temporary file behind."""
import glob
import os
import signal
import subprocess
import sys
import time

synth, config, out = sys.argv[1:4]
for stale in glob.glob(out + "*"):
    os.remove(stale)
process = subprocess.Popen([synth, "--config", config, "--quiet", "-o", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
deadline = time.time() + 60
while not glob.glob(out + ".tmp.*"):
    if process.poll() is not None or time.time() > deadline:
        sys.exit("kiln-synth ended or stalled before writing: %s" % process.communicate()[1])
    time.sleep(0.05)
process.send_signal(signal.SIGINT)
_, err = process.communicate(timeout=120)
left = glob.glob(out + "*")
print("exit %d, left %d files" % (process.returncode, len(left)))
print(err.strip())
