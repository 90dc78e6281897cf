// The pool of host/async.hpp.

#include "cmfpipe/core/host/async.hpp"
#include "machine_share.hpp"

namespace cmfpipe::host {
namespace {

std::size_t pool_size(std::size_t threads) {
    if (threads != 0) return threads;
    return machine_share().cores;
}

}  // namespace

Host::Host(std::shared_ptr<const Service> service, std::size_t threads)
    : service_(std::move(service)), threads_(pool_size(threads)), pool_(threads_) {}

Host::~Host() {
    pool_.join();
}

}  // namespace cmfpipe::host
