#include "seprank/forward.hpp"

#include "forward_impl.hpp"
#include "rings_impl.hpp"
#include "seprank/error.hpp"

#include <array>
#include <memory_resource>

namespace seprank {

template <class T>
void check_point(const NetworkSpec& s, const Point<T>& point) {
    const long per = input_vars_per_token(s);
    if (static_cast<long>(point.size()) != s.tokens)
        throw invalid_input("point has " + std::to_string(point.size()) + " tokens, the network has " +
                            std::to_string(s.tokens));
    for (std::size_t j = 0; j < point.size(); ++j)
        if (static_cast<long>(point[j].size()) != per)
            throw invalid_input("point token " + std::to_string(j + 1) + " has " + std::to_string(point[j].size()) +
                                " values, expected " + std::to_string(per));
}

template void check_point(const NetworkSpec&, const Point<Rational>&);
template void check_point(const NetworkSpec&, const Point<double>&);
template void check_point(const NetworkSpec&, const Point<std::uint64_t>&);

Rational evaluate(const Network& net, const Point<Rational>& point) {
    check_shapes(net);
    check_point(net.spec, point);
    detail::RationalRing ring;
    return detail::Forward<detail::RationalRing>(net.spec, net.weights, ring).output(point);
}

double evaluate_double(const Network& net, const Point<double>& point) {
    check_shapes(net);
    check_point(net.spec, point);
    const auto w = map_weights<double>(net.weights, [](const Rational& x) { return fmpq_get_d(x.get()); });
    detail::DoubleRing ring;
    return detail::Forward<detail::DoubleRing>(net.spec, w, ring).output(point);
}

namespace {
std::uint64_t checked_modulus(std::uint64_t p) {
    if (p < 2) throw invalid_input("modulus p = " + std::to_string(p) + " must be at least 2");
    return p;
}
}  // namespace

ModEvaluator::ModEvaluator(const Network& net, std::uint64_t p)
    : spec_(check_shapes(net)),
      p_(checked_modulus(p)),
      w_(map_weights<std::uint64_t>(net.weights, [p](const Rational& x) { return x.mod(p); })) {}

std::uint64_t ModEvaluator::operator()(const Point<std::uint64_t>& point) const {
    check_point(spec_, point);
    for (const auto& t : point)
        for (auto x : t)
            if (x >= p_) {  // rare: callers usually pass residues
                Point<std::uint64_t> reduced = point;
                for (auto& u : reduced)
                    for (auto& y : u) y %= p_;
                return (*this)(reduced);
            }
    detail::ModRing ring(p_);
    // A per-call arena on this thread's stack-like buffer: the pass allocates nothing.
    thread_local std::array<std::byte, 1 << 16> buffer;
    std::pmr::monotonic_buffer_resource arena(buffer.data(), buffer.size());
    return detail::Forward<detail::ModRing>(spec_, w_, ring, &arena).output(point);
}

}  // namespace seprank
