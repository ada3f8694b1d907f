#include "seprank/tape.hpp"

#include "cuda_tape.hpp"
#include "algebra/device_plugin.hpp"
#include "forward_impl.hpp"
#include "seprank/device.hpp"
#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/network.hpp"
#include "seprank/prime.hpp"
#include "tape_impl.hpp"
#include "base/word_mod.hpp"


#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace seprank {

namespace {

static_assert(tape::op_zero == +SR_TAPE_ZERO && tape::op_const == +SR_TAPE_CONST && tape::op_input == +SR_TAPE_INPUT &&
              tape::op_mul == +SR_TAPE_MUL && tape::op_add == +SR_TAPE_ADD && tape::op_axpy == +SR_TAPE_AXPY &&
              tape::op_scale == +SR_TAPE_SCALE && tape::op_copy == +SR_TAPE_COPY && tape::op_addc == +SR_TAPE_ADDC,
              "tape_impl.hpp and seprank_cuda.h number the instructions alike");

constexpr std::uint64_t kTwo63 = std::uint64_t{1} << 63;
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

std::uint64_t checked_prime(std::uint64_t p) {
    if (p < 2 || p >= kTwo63) throw invalid_input("modulus p = " + std::to_string(p) + ": a tape takes primes 2 <= p < 2^63");
    require_prime(p);
    return p;
}

// The modulus at recording time: the arithmetic of the interpreters (tape_impl.hpp), with
// the form chosen at run time.
struct Arith {
    bool two = false;
    tape::Mont m;
    explicit Arith(std::uint64_t p) : two(p == 2) {
        if (!two) m = tape::make_mont(p);
    }
    std::uint64_t mul(std::uint64_t a, std::uint64_t b) const { return two ? tape::Two{}.mul(a, b) : m.mul(a, b); }
    std::uint64_t add(std::uint64_t a, std::uint64_t b) const { return two ? tape::Two{}.add(a, b) : m.add(a, b); }
    std::uint64_t to(std::uint64_t x) const { return two ? tape::Two{}.to(x) : m.to(x); }
    std::uint64_t one() const { return to(1); }
};

// An instruction in single-assignment form: it defines value `def`; a, b are values
// (for INPUT, a is the coordinate).
struct Ins {
    std::uint32_t code = 0, a = 0, b = 0;
    std::uint64_t w = 0;
    std::uint32_t def = 0;
};

// The values of the recording: a constant known now (no instruction) or the result of an
// instruction. Value 0 is the constant 0.
class Recorder {
public:
    explicit Recorder(const Arith& ar) : ar_(ar) {
        konst_.push_back(true);
        cval_.push_back(0);
        interned_[0] = 0;
    }
    const Arith& ar() const { return ar_; }
    bool is_const(std::uint32_t v) const { return konst_[v]; }
    std::uint64_t cval(std::uint32_t v) const { return cval_[v]; }
    std::uint32_t constant(std::uint64_t w) {
        auto [it, fresh] = interned_.try_emplace(w, 0);
        if (fresh) it->second = fresh_value(true, w);
        return it->second;
    }
    std::uint32_t emit(std::uint32_t code, std::uint32_t a, std::uint32_t b, std::uint64_t w) {
        const std::uint32_t v = fresh_value(false, 0);
        ins_.push_back(Ins{code, a, b, w, v});
        return v;
    }
    // w·x, folded.
    std::uint32_t scale(std::uint64_t w, std::uint32_t x) {
        if (w == 0) return 0;
        if (is_const(x)) return constant(ar_.mul(w, cval(x)));
        if (w == ar_.one()) return x;
        return emit(tape::op_scale, x, 0, w);
    }
    // x + y, folded.
    std::uint32_t sum(std::uint32_t x, std::uint32_t y) {
        if (is_const(x) && is_const(y)) return constant(ar_.add(cval(x), cval(y)));
        if (is_const(y)) std::swap(x, y);
        if (is_const(x)) return cval(x) == 0 ? y : emit(tape::op_addc, y, 0, cval(x));
        return emit(tape::op_add, x, y, 0);
    }
    std::uint32_t product(std::uint32_t x, std::uint32_t y) {
        if (is_const(x)) return scale(cval(x), y);
        if (is_const(y)) return scale(cval(y), x);
        return emit(tape::op_mul, x, y, 0);
    }
    // acc + w·x, folded.
    std::uint32_t axpy(std::uint32_t acc, std::uint64_t w, std::uint32_t x) {
        if (w == 0 || (is_const(x) && cval(x) == 0)) return acc;
        if (is_const(x) || is_const(acc) || w == ar_.one()) return sum(acc, scale(w, x));
        return emit(tape::op_axpy, acc, x, w);
    }
    std::vector<Ins>& instructions() { return ins_; }
    std::size_t values() const { return konst_.size(); }

private:
    std::uint32_t fresh_value(bool is_const, std::uint64_t c) {
        if (konst_.size() >= kNone) throw resource_limit("tape: the forward pass has more than 2^32 values");
        konst_.push_back(is_const);
        cval_.push_back(c);
        return static_cast<std::uint32_t>(konst_.size() - 1);
    }
    const Arith& ar_;
    std::vector<bool> konst_;
    std::vector<std::uint64_t> cval_;
    std::unordered_map<std::uint64_t, std::uint32_t> interned_;
    std::vector<Ins> ins_;
};

// Ring policy of detail::Forward (forward_impl.hpp) whose elements are value numbers of
// the recorder: each operation appends (or folds) an instruction.
struct TracingRing {
    struct E {
        std::uint32_t v = 0;  // the constant 0 by default
    };
    using W = std::uint64_t;
    Recorder* rec;
    E zero() const { return E{0}; }
    E constant(long c) const {
        const Arith& ar = rec->ar();
        return E{rec->constant(ar.to(detail::residue_of(c, ar.two ? 2 : ar.m.p)))};
    }
    E mul(const E& a, const E& b) const { return E{rec->product(a.v, b.v)}; }
    void add(E& acc, const E& x) const { acc.v = rec->sum(acc.v, x.v); }
    void axpy(E& acc, W w, const E& x) const { acc.v = rec->axpy(acc.v, w, x.v); }
    bool is_zero(W w) const { return w == 0; }
    W weight_zero() const { return 0; }
    W weight_fma(W s, W a, W b) const { return rec->ar().add(s, rec->ar().mul(a, b)); }
};

bool reads_a(std::uint32_t code) { return code != tape::op_zero && code != tape::op_const && code != tape::op_input; }
bool reads_b(std::uint32_t code) { return code == tape::op_mul || code == tape::op_add || code == tape::op_axpy; }

template <class Ar>
void interpret(const std::vector<Tape::Op>& ops, const Ar& ar, std::size_t slots, std::size_t inputs, std::uint32_t output,
               const std::uint64_t* points, std::size_t count, std::uint64_t* out) {
    constexpr std::size_t kBlock = 64;  // points per pass over the program
    std::vector<std::uint64_t> s(slots * kBlock);
    for (std::size_t q0 = 0; q0 < count; q0 += kBlock) {
        const std::size_t n = std::min(kBlock, count - q0);
        for (const Tape::Op& op : ops) tape::step_block(op, ar, s.data(), n, points + q0 * inputs, inputs);
        for (std::size_t l = 0; l < n; ++l) out[q0 + l] = ar.from(s[output * n + l]);
    }
}

}  // namespace

Tape::Tape(const Network& net, std::uint64_t p) {
    const ValidSpec spec = check_shapes(net);
    p_ = checked_prime(p);
    const Arith ar(p_);
    const NetWeights<std::uint64_t> w = map_weights<std::uint64_t>(net.weights, [&](const Rational& x) { return ar.to(x.mod(p_)); });

    // 1. Record: the inputs, then the pass.
    Recorder rec(ar);
    const std::size_t ntok = static_cast<std::size_t>(spec->tokens);
    const std::size_t per = static_cast<std::size_t>(input_vars_per_token(spec));
    inputs_ = ntok * per;
    Point<TracingRing::E> x(ntok, std::vector<TracingRing::E>(per));
    for (std::size_t t = 0; t < ntok; ++t)
        for (std::size_t c = 0; c < per; ++c) x[t][c].v = rec.emit(tape::op_input, static_cast<std::uint32_t>(t * per + c), 0, 0);
    TracingRing ring{&rec};
    const std::uint32_t result = detail::Forward<TracingRing>(spec, w, ring).output(x).v;

    if (rec.is_const(result)) {  // f is a constant mod p
        ops_.push_back(Op{tape::op_const, 0, 0, 0, rec.cval(result)});
        slots_ = 1;
        output_ = 0;
        return;
    }

    // 2. Dead code: keep what the result depends on.
    std::vector<Ins>& ins = rec.instructions();
    std::vector<char> live(rec.values(), 0);
    live[result] = 1;
    std::vector<char> keep(ins.size(), 0);
    for (std::size_t k = ins.size(); k-- > 0;) {
        const Ins& i = ins[k];
        if (!live[i.def]) continue;
        keep[k] = 1;
        if (reads_a(i.code)) live[i.a] = 1;
        if (reads_b(i.code)) live[i.b] = 1;
    }

    // 3. Schedule: the recorded order, each INPUT moved to just before its first reader.
    std::vector<std::uint32_t> input_of(rec.values(), kNone);  // value -> its INPUT instruction
    for (std::size_t k = 0; k < ins.size(); ++k)
        if (keep[k] && ins[k].code == tape::op_input) input_of[ins[k].def] = static_cast<std::uint32_t>(k);
    std::vector<std::uint32_t> order;
    order.reserve(ins.size());
    auto place_input = [&](std::uint32_t v) {
        if (input_of[v] != kNone) {
            order.push_back(input_of[v]);
            input_of[v] = kNone;
        }
    };
    for (std::size_t k = 0; k < ins.size(); ++k) {
        if (!keep[k] || ins[k].code == tape::op_input) continue;
        if (reads_a(ins[k].code)) place_input(ins[k].a);
        if (reads_b(ins[k].code)) place_input(ins[k].b);
        order.push_back(static_cast<std::uint32_t>(k));
    }
    place_input(result);  // f is one of the inputs (depth 0)

    // 4. Slots by liveness: a value's slot is freed after its last reader, and the next
    // definition takes the most recently freed slot (operands are read before dst is
    // written, so an instruction may write over its own operand).
    std::vector<std::uint32_t> last(rec.values(), 0);
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
        const Ins& i = ins[order[pos]];
        if (reads_a(i.code)) last[i.a] = static_cast<std::uint32_t>(pos);
        if (reads_b(i.code)) last[i.b] = static_cast<std::uint32_t>(pos);
    }
    last[result] = kNone;
    std::vector<std::uint32_t> slot_of(rec.values(), kNone);
    std::vector<std::uint32_t> free_slots;
    std::uint32_t used = 0;
    ops_.reserve(order.size());
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
        const Ins& i = ins[order[pos]];
        Op op{i.code, 0, 0, 0, i.w};
        if (i.code == tape::op_input) op.a = i.a;
        if (reads_a(i.code)) op.a = slot_of[i.a];
        if (reads_b(i.code)) op.b = slot_of[i.b];
        if (reads_a(i.code) && last[i.a] == pos) free_slots.push_back(op.a);
        if (reads_b(i.code) && last[i.b] == pos && !(reads_a(i.code) && i.b == i.a)) free_slots.push_back(op.b);
        if (!free_slots.empty()) {
            op.dst = free_slots.back();
            free_slots.pop_back();
        } else {
            op.dst = used++;
        }
        slot_of[i.def] = op.dst;
        ops_.push_back(op);
    }
    slots_ = used;
    output_ = slot_of[result];
}

std::vector<std::size_t> Tape::histogram() const {
    std::vector<std::size_t> h(tape::op_count, 0);
    for (const Op& op : ops_) ++h[op.code];
    return h;
}

void Tape::evaluate(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const {
    if (p_ == 2) return interpret(ops_, tape::Two{}, slots_, inputs_, output_, points, count, out);
    interpret(ops_, tape::make_mont(p_), slots_, inputs_, output_, points, count, out);
}

detail::CudaTape::CudaTape(const Tape& tape) : ops(tape.size()) {
    for (std::size_t k = 0; k < ops.size(); ++k) {
        const Tape::Op& op = tape.ops()[k];
        ops[k] = sr_tape_op{op.code, op.dst, op.a, op.b, op.w};
    }
    const char* env = std::getenv("SEPRANK_CUDA_TAPE");
    // SEPRANK_CUDA_TAPE lists "general" and/or "wide" (SR_TAPE_WIDE: 64-bit words for every p).
    const std::uint32_t flags = (env != nullptr && std::strstr(env, "general") != nullptr ? SR_TAPE_GENERAL : 0u) |
                                (env != nullptr && std::strstr(env, "wide") != nullptr ? SR_TAPE_WIDE : 0u);
    t = sr_tape{ops.data(), static_cast<std::int64_t>(ops.size()), static_cast<std::int64_t>(tape.slots()),
                static_cast<std::int64_t>(tape.inputs()), tape.output_slot(), flags, tape.modulus()};
}

void Tape::check_grid(const TapeGrid& g) const {
    if (g.source.size() != inputs_)
        throw invalid_input("tape grid: source has " + std::to_string(g.source.size()) + " entries, the network " + std::to_string(inputs_) +
                            " inputs");
    for (std::size_t c = 0; c < g.source.size(); ++c)
        if (g.source[c] >= g.width_a + g.width_b)
            throw invalid_input("tape grid: source[" + std::to_string(c) + "] = " + std::to_string(g.source[c]) + " is not below width_a + width_b = " +
                                std::to_string(g.width_a + g.width_b));
    if (g.nodes < 1) throw invalid_input("tape grid: nodes = 0, expected at least 1");
}

void Tape::evaluate_grid(const TapeGrid& g, std::uint64_t* out) const {
    check_grid(g);
    // The points of one row i at a time, laid out flat (A side scaled in plain residues).
    __extension__ typedef unsigned __int128 u128;
    const std::size_t per_row = g.cols * g.nodes;
    std::vector<std::uint64_t> pts(per_row * inputs_);
    for (std::size_t i = 0; i < g.rows; ++i) {
        for (std::size_t j = 0; j < g.cols; ++j)
            for (std::size_t t = 0; t < g.nodes; ++t) {
                std::uint64_t* x = pts.data() + (j * g.nodes + t) * inputs_;
                for (std::size_t c = 0; c < inputs_; ++c) {
                    const std::size_t k = g.source[c];
                    x[c] = k < g.width_a ? static_cast<std::uint64_t>(static_cast<u128>(g.a[i * g.width_a + k] % p_) * ((t + 1) % p_) % p_)
                                         : g.b[j * g.width_b + (k - g.width_a)];
                }
            }
        evaluate(pts.data(), per_row, out + i * per_row);
    }
}

void Tape::evaluate_grid_cuda(const TapeGrid& g, std::uint64_t* out) const {
    const detail::CudaPlugin& fn = detail::cuda_plugin();
    check_grid(g);
    if (g.rows == 0 || g.cols == 0) return;
    const auto entry = fn.tape_grid;
    const detail::CudaTape ct(*this);
    const sr_tape_grid grid{g.a, static_cast<std::int64_t>(g.rows), static_cast<std::int64_t>(g.width_a), g.b, static_cast<std::int64_t>(g.cols),
                            static_cast<std::int64_t>(g.width_b), static_cast<std::int64_t>(g.nodes), g.source.data()};
    sr_cuda_status st{};
    const int rc = entry(&ct.t, &grid, out, &st);
    if (rc != SR_CUDA_OK && st.code == SR_CUDA_OK) st.code = rc;
    detail::check_cuda(st, "Tape::evaluate_grid_cuda");
}

void Tape::evaluate_cuda(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const {
    const detail::CudaPlugin& fn = detail::cuda_plugin();
    if (count == 0) return;
    const detail::CudaTape ct(*this);
    sr_cuda_status st{};
    const int rc = fn.tape_eval(&ct.t, points, static_cast<std::int64_t>(count), out, &st);
    if (rc != SR_CUDA_OK && st.code == SR_CUDA_OK) st.code = rc;
    detail::check_cuda(st, "Tape::evaluate_cuda");
}

}  // namespace seprank
