// Whether the machine has a CPU no other thread is waiting for. An idle I/O loop's poll
// (poll_window.hpp) is worth only a CPU nobody else would use: on a machine it shares with its
// clients, its upstream or other work, a polling thread holds a CPU that a woken thread then waits
// for (measured on 2 cores with 16 paced clients: p50 0.55 -> 0.89 ms, CPU a request 33 -> 87 µs),
// which is the latency the poll was meant to save. /proc/loadavg's fourth field counts the
// threads that are runnable (running or waiting for a CPU), the polling one included; while they
// are more than the online CPUs, some wait, and the loop sleeps instead. Reading it is one pread
// of an open file (about a microsecond, the cost of one poll).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <string_view>

namespace cmfpipe::serve {

class SpareCpu {
  public:
    SpareCpu() : file_(::open("/proc/loadavg", O_RDONLY | O_CLOEXEC)) {}
    ~SpareCpu() {
        if (file_ >= 0) ::close(file_);
    }
    SpareCpu(const SpareCpu&) = delete;
    SpareCpu& operator=(const SpareCpu&) = delete;

    // No file to read: no poll (it could not be known to be free).
    bool now() const {
        if (file_ < 0) return false;
        char text[128];
        const ssize_t size = ::pread(file_, text, sizeof text, 0);
        return size > 0 && spare_in(std::string_view(text, std::size_t(size)), cpus_);
    }

    // "0.55 1.46 1.63 RUNNABLE/TOTAL LAST_PID": every runnable thread has a CPU.
    static bool spare_in(std::string_view loadavg, long cpus) {
        std::size_t at = 0;
        for (int field = 0; field < 3; ++field) {
            at = loadavg.find(' ', at);
            if (at == std::string_view::npos) return false;
            ++at;
        }
        long runnable = 0;
        const char* end = loadavg.data() + loadavg.size();
        const auto [stop, error] = std::from_chars(loadavg.data() + at, end, runnable);
        return error == std::errc() && stop != end && *stop == '/' && runnable <= cpus;
    }

  private:
    int file_;
    long cpus_ = ::sysconf(_SC_NPROCESSORS_ONLN);
};

}  // namespace cmfpipe::serve
