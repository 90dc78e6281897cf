// What of the machine this process may use: its cores and its memory, narrowed by the CPUs it may
// run on (sched_getaffinity) and by the CPU quota and memory limit of its cgroup and of every
// cgroup above it (cgroup v2, or v1's cpu and memory controllers), as a container runtime or
// Kubernetes sets them. Defaults sized from the machine alone (a pool thread per core, a buffer
// budget of an eighth of memory) would give a container allowed half a core and 256 MiB of a
// 64-core, 512 GiB node 64 threads and a 64 GiB budget: throttled, then killed for memory.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace cmfpipe::host {

struct MachineShare {
    std::size_t cores = 1;
    std::size_t memory = 0;  // bytes; 0: not known
    // The cgroup CPU quota in cores, when there is one (even one over the machine's cores).
    std::optional<double> cpu_quota;
    // Where each figure comes from, for the start-up log: "the machine's 8 cores", "the cgroup
    // CPU quota of 1.50 cores", "the cgroup memory limit"...
    std::string cores_from, memory_from;
};

// Reads /proc/self/mountinfo, /proc/self/cgroup and the cgroup files they lead to, each path
// prefixed with `root` ("" on a live system; tests give a folder laid out as / is). A file that
// is missing or does not read as the kernel writes it narrows nothing: the machine's figure
// stands. The affinity mask is read only when `root` is "".
MachineShare machine_share(const std::string& root = "");

}  // namespace cmfpipe::host
