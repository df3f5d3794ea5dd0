# Shared by the run scripts' `power` parts (sourced, not run): an nvidia-smi trace beside a
# process's stamped progress, for bench/power-trace.py to read.
#
#   power_trace_start DIR   starts nvidia-smi every 50 ms into DIR/smi.csv: time, SM clock,
#                           instant power, temperature and, where the driver has it, the bit
#                           mask of what holds the clock (the power cap, the current's peaks,
#                           heat)
#   power_trace_stop        stops it
#   ... | power_stamp       prefixes each line with the Unix time it was written

power_trace_start() {
  local fields=timestamp,clocks.sm,power.draw.instant,temperature.gpu
  nvidia-smi --query-gpu=clocks_event_reasons.active --format=csv > /dev/null 2>&1 &&
    fields=$fields,clocks_event_reasons.active
  nvidia-smi --query-gpu=$fields --format=csv,noheader,nounits -lms 50 > "$1/smi.csv" &
  POWER_TRACE_PID=$!
}

power_trace_stop() {
  kill "$POWER_TRACE_PID" 2> /dev/null
  wait "$POWER_TRACE_PID" 2> /dev/null
}

power_stamp() {
  while IFS= read -r line; do echo "$(date +%s.%N) $line"; done
}
