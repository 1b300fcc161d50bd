# stopped.bash -- loaded by the .bats files that stop a process on purpose
# (a FAIRSHUF_TEST_STOP_* hook raises SIGSTOP) and then signal it there.

# Waits (up to 10 s) for process $1 to stop; prints its state letter (T).
wait_stopped() {
    for _ in $(seq 200); do
        [ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" = T ] && break
        sleep 0.05
    done
    awk '{print $3}' /proc/$1/stat 2>/dev/null
}
