// seprank — the graded evaluation's blocks in device memory (graded_device.hpp).
#include "graded_device.hpp"

#include "network/cuda_tape.hpp"
#include "algebra/device_plugin.hpp"
#include "seprank/error.hpp"

namespace seprank::detail {

namespace {

void raise(int rc, sr_cuda_status& st, const std::string& what) {
    if (rc != SR_CUDA_OK && st.code == SR_CUDA_OK) st.code = rc;
    check_cuda(st, what);
}

}  // namespace

GradedSession::GradedSession(const Tape& tape, const NmodMat& w, const std::vector<std::uint32_t>& source, std::size_t width_a,
                             std::size_t width_b) {
    const CudaPlugin& fn = cuda_plugin();
    const long nd = w.rows();
    if (w.cols() != nd || w.modulus() != tape.modulus())
        throw invalid_input("graded session: W must be square and reduced by the tape's modulus " + std::to_string(tape.modulus()));
    if (source.size() != tape.inputs())
        throw invalid_input("graded session: source has " + std::to_string(source.size()) + " entries, the network " + std::to_string(tape.inputs()) +
                            " inputs");
    std::vector<std::uint64_t> flat(static_cast<std::size_t>(nd * nd));
    for (long t = 0; t < nd; ++t)
        for (long c = 0; c < nd; ++c) flat[static_cast<std::size_t>(t * nd + c)] = w.get()->rows[t][c];
    const CudaTape ct(tape);
    const sr_graded_setup setup{&ct.t, nd, flat.data(), static_cast<std::int64_t>(width_a), static_cast<std::int64_t>(width_b), source.data()};
    sr_cuda_status st{};
    raise(fn.graded_open(&setup, &g_, &st), st, "graded session");
}

GradedSession::~GradedSession() {
    if (g_) cuda_plugin().graded_close(g_);
}

bool GradedSession::step(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b, long k, const std::vector<long>& side,
                         std::string& why) {
    std::vector<std::int64_t> s(side.begin(), side.end());
    sr_cuda_status st{};
    const int rc = cuda_plugin().graded_step(g_, a.data(), b.data(), k, s.data(), &st);
    if (rc == SR_CUDA_NO_MEMORY || st.code == SR_CUDA_NO_MEMORY) {
        why = st.message;
        return false;
    }
    raise(rc, st, "graded step at side " + std::to_string(k));
    bytes_ = st.bytes;
    seconds_ += st.gpu_seconds;
    return true;
}

long GradedSession::rank(long c) {
    sr_cuda_status st{};
    std::int64_t r = 0;
    raise(cuda_plugin().graded_rank(g_, c, &r, &st), st, "rank of degree block " + std::to_string(c));
    seconds_ += st.gpu_seconds;
    return static_cast<long>(r);
}

std::vector<long> GradedSession::ranks(const std::vector<long>& c) {
    const std::vector<std::int64_t> which(c.begin(), c.end());
    std::vector<std::int64_t> r(which.size(), 0);
    sr_cuda_status st{};
    raise(cuda_plugin().graded_ranks(g_, which.data(), static_cast<std::int64_t>(which.size()), r.data(), &st), st,
          "ranks of " + std::to_string(which.size()) + " degree blocks");
    seconds_ += st.gpu_seconds;
    streams_ = static_cast<int>(st.streams);
    return std::vector<long>(r.begin(), r.end());
}

std::vector<std::uint64_t> GradedSession::block(long c, long side) const {
    std::vector<std::uint64_t> out(static_cast<std::size_t>(side) * static_cast<std::size_t>(side));
    sr_cuda_status st{};
    raise(cuda_plugin().graded_block(g_, c, out.data(), &st), st, "degree block " + std::to_string(c));
    return out;
}

}  // namespace seprank::detail
