// host/machine_share.hpp: the cores and memory a process may use, read from files laid out as the
// kernel's /proc and /sys are (cgroup v1 and v2, on a host and inside a container). The same code
// on a live cgroup: tests/deploy/cgroup_limits.py.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>

#include "host/machine_share.hpp"
#include "support/scratch.hpp"

using cmfpipe::host::machine_share;
using cmfpipe::host::MachineShare;
using cmfpipe::testing::Scratch;

namespace {

std::size_t machine_cores() {
    return std::max(1u, std::thread::hardware_concurrency());
}

std::size_t machine_memory() {
    return std::size_t(::sysconf(_SC_PHYS_PAGES)) * std::size_t(::sysconf(_SC_PAGE_SIZE));
}

constexpr std::size_t mib = 1 << 20;

// A v1 host: cpu and memory controllers mounted apart, as Debian 12 with systemd's legacy mode.
void write_v1_mounts(const Scratch& root, const std::string& cpu_path,
                     const std::string& memory_path) {
    root.write("proc/self/mountinfo",
               "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
               "30 22 0:26 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:9 - cgroup cgroup "
               "rw,cpu,cpuacct\n"
               "31 22 0:27 / /sys/fs/cgroup/memory rw,nosuid shared:10 - cgroup cgroup "
               "rw,memory\n"
               "32 22 0:28 / /sys/fs/cgroup/cpuset rw,nosuid shared:11 - cgroup cgroup "
               "rw,cpuset\n");
    root.write("proc/self/cgroup", "11:cpuset:/\n4:memory:" + memory_path +
                                       "\n3:cpu,cpuacct:" + cpu_path + "\n1:name=systemd:/\n");
}

}  // namespace

TEST_CASE("machine share: no cgroup files, the machine's cores and memory") {
    Scratch root;
    const MachineShare share = machine_share(root.dir.string());
    CHECK(share.cores == machine_cores());
    CHECK(share.cores_from == "the machine's " + std::to_string(machine_cores()) + " cores");
    CHECK_FALSE(share.cpu_quota);
    CHECK(share.memory == machine_memory());
    CHECK(share.memory_from == "the machine's memory");
}

TEST_CASE("machine share: cgroup v1 quota and limit, the tightest of the cgroup and its parents") {
    Scratch root;
    write_v1_mounts(root, "/kubepods/pod1/c1", "/kubepods/pod1/c1");
    const std::string cpu = "sys/fs/cgroup/cpu,cpuacct";
    root.write(cpu + "/kubepods/pod1/c1/cpu.cfs_quota_us", "-1\n");  // none of its own
    root.write(cpu + "/kubepods/pod1/c1/cpu.cfs_period_us", "100000\n");
    root.write(cpu + "/kubepods/pod1/cpu.cfs_quota_us", "50000\n");  // the pod's: half a core
    root.write(cpu + "/kubepods/pod1/cpu.cfs_period_us", "100000\n");
    root.write(cpu + "/kubepods/cpu.cfs_quota_us", "-1\n");
    root.write(cpu + "/kubepods/cpu.cfs_period_us", "100000\n");
    const std::string memory = "sys/fs/cgroup/memory";
    root.write(memory + "/kubepods/pod1/c1/memory.limit_in_bytes", "268435456\n");
    root.write(memory + "/kubepods/pod1/memory.limit_in_bytes", "536870912\n");
    root.write(memory + "/memory.limit_in_bytes", "9223372036854771712\n");  // none
    const MachineShare share = machine_share(root.dir.string());
    CHECK(share.cores == 1);
    CHECK(share.cores_from == "the cgroup CPU quota of 0.50 cores");
    CHECK(share.cpu_quota == 0.5);
    CHECK(share.memory == 256 * mib);
    CHECK(share.memory_from == "the cgroup memory limit");
}

TEST_CASE("machine share: a quota of 1.5 cores is 2 threads, and never more than the machine's") {
    Scratch root;
    write_v1_mounts(root, "/c", "/c");
    root.write("sys/fs/cgroup/cpu,cpuacct/c/cpu.cfs_quota_us", "150000\n");
    root.write("sys/fs/cgroup/cpu,cpuacct/c/cpu.cfs_period_us", "100000\n");
    const MachineShare share = machine_share(root.dir.string());
    CHECK(share.cores == std::min<std::size_t>(2, machine_cores()));
    CHECK(share.cores_from ==
          (machine_cores() > 2 ? "the cgroup CPU quota of 1.50 cores"
                               : "the machine's " + std::to_string(machine_cores()) + " cores"));

    root.write("sys/fs/cgroup/cpu,cpuacct/c/cpu.cfs_quota_us", "100000000\n");  // 1,000 cores
    CHECK(machine_share(root.dir.string()).cores == machine_cores());
    CHECK(machine_share(root.dir.string()).cpu_quota == 1000.0);  // a quota all the same
}

TEST_CASE("machine share: cgroup v2 inside a container (its own namespace, cpu.max, memory.max)") {
    Scratch root;
    root.write("proc/self/mountinfo",
               "600 500 0:40 / / rw,relatime - overlay overlay rw\n"
               "610 600 0:45 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 "
               "rw,nsdelegate\n");
    root.write("proc/self/cgroup", "0::/\n");
    root.write("sys/fs/cgroup/cpu.max", "25000 100000\n");
    root.write("sys/fs/cgroup/memory.max", "134217728\n");
    MachineShare share = machine_share(root.dir.string());
    CHECK(share.cores == 1);
    CHECK(share.cores_from == "the cgroup CPU quota of 0.25 cores");
    CHECK(share.memory == 128 * mib);

    root.write("sys/fs/cgroup/cpu.max", "max 100000\n");
    root.write("sys/fs/cgroup/memory.max", "max\n");
    share = machine_share(root.dir.string());
    CHECK(share.cores == machine_cores());
    CHECK(share.memory == machine_memory());
}

TEST_CASE("machine share: cgroup v2 on a host, the path below a mount root of its own") {
    Scratch root;
    // Without a cgroup namespace the mount's root is the container's cgroup and the process's
    // path is given from the host's root: what is below the mount's root is followed.
    root.write("proc/self/mountinfo",
               "610 600 0:45 /system.slice/app.scope /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
    root.write("proc/self/cgroup", "0::/system.slice/app.scope/worker\n");
    root.write("sys/fs/cgroup/worker/cpu.max", "max 100000\n");
    root.write("sys/fs/cgroup/worker/memory.max", "max\n");
    root.write("sys/fs/cgroup/memory.max", "67108864\n");  // the scope's
    const MachineShare share = machine_share(root.dir.string());
    CHECK(share.memory == 64 * mib);
    CHECK(share.cores == machine_cores());
}

TEST_CASE("machine share: files that do not read as the kernel writes them narrow nothing") {
    Scratch root;
    write_v1_mounts(root, "/c", "/c");
    for (const char* quota : {"half\n", "50000 100000\n", "", "-50000\n", "0\n"}) {
        root.write("sys/fs/cgroup/cpu,cpuacct/c/cpu.cfs_quota_us", quota);
        root.write("sys/fs/cgroup/cpu,cpuacct/c/cpu.cfs_period_us", "100000\n");
        root.write("sys/fs/cgroup/memory/c/memory.limit_in_bytes", quota);
        const MachineShare share = machine_share(root.dir.string());
        INFO("quota file: '" << quota << "'");
        CHECK(share.cores == machine_cores());
        CHECK(share.memory == machine_memory());
    }
    // A path that climbs out of the hierarchy is not one the kernel writes.
    write_v1_mounts(root, "/../../etc", "/c");
    CHECK(machine_share(root.dir.string()).cores == machine_cores());
    // No mountinfo, or a cgroup file without the controller: nothing to follow.
    root.write("proc/self/cgroup", "1:name=systemd:/\n");
    CHECK(machine_share(root.dir.string()).cores == machine_cores());
}
