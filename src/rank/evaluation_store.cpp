// seprank — the graded evaluation's steps through a block store, shared by the processes that
// compute one evaluation together (StoreBackend; block_store.hpp, docs/evaluation.md "Block store").
#include "evaluation_internal.hpp"

#include "base/file_io.hpp"
#include "base/hash.hpp"
#include "seprank/error.hpp"
#include "algebra/rank_internal.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace seprank::evaluation_detail {

namespace {

// A rank unit's text: the rank's decimal digits (no sign, no leading zero), a space, the
// 16 hex digits of FNV-1a of "NAME DIGITS" (the unit's own name: a unit copied over
// another, or a plausible "0" written by hand, is damage, not a rank), one newline.
std::string rank_unit_text(const std::string& name, long r) {
    const std::string digits = std::to_string(r);
    return digits + " " + detail::fnv1a_hex(name + " " + digits) + "\n";
}

// The rank a unit named `name` holds, exactly as rank_unit_text writes it; -1 for anything
// else (a damaged unit: " 1", "+1", "1 junk", "1\0" were read as 1 by strtol). O(length).
long parse_rank_unit(const std::string& name, const std::string& text) {
    const std::size_t space = text.find(' ');
    if (space == std::string::npos || space == 0) return -1;
    long r = -1;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + space, r);
    if (ec != std::errc() || p != text.data() + space || r < 0 || text != rank_unit_text(name, r)) return -1;
    return r;
}

// A rank unit holds at most 20 digits, a space, 16 hex digits and the newline.
constexpr std::size_t kRankUnitBytes = 48;

// The checksum word of `bytes` bytes at data (FNV-1a, 64 bits), as units store it,
// continued from h.
std::uint64_t checksum(const void* data, std::size_t bytes, std::uint64_t h) { return detail::fnv1a_bytes(data, bytes, h); }
// Where a unit's checksum starts: the hash of its name (and of the section's block, in a
// tile), so that a unit copied over another of the same size is damage, not data.
std::uint64_t checksum_seed(const std::string& unit) { return detail::fnv1a(unit); }

}  // namespace

StoreBackend::StoreBackend(const Graded& g, const PointEvaluator& f, const Partition& part, const SidePoints& ra, const SidePoints& rb,
             std::vector<Block>& blocks, int threads, bool bordered, const std::string& dir, const std::string& signature)
    : g_(g), f_(f), part_(part), ra_(ra), rb_(rb), blocks_(blocks), nt_(threads), bordered_(bordered),
      store_(dir, signature) {}

bool StoreBackend::evaluate(long K, long old) {
    Step s;
    s.K = K;
    s.old = old;
    s.side.assign(blocks_.size(), 0);
    for (std::size_t a = 0; a < blocks_.size(); ++a)
        if (!blocks_[a].done) s.side[a] = blocks_[a].side;
    // About 2^21 forward passes per tile (a few seconds), at least 1 row.
    s.tile_rows = std::max(1L, (1L << 21) / std::max(1L, K * g_.nd));
    s.tiles = (K + s.tile_rows - 1) / s.tile_rows;
    steps_.push_back(std::move(s));
    const long si = static_cast<long>(steps_.size()) - 1;
    const Step& cur = steps_.back();
    work_all(cur.tiles, [&](long t) { return tile_name(si, t); }, [&](long t) {
        std::vector<std::vector<std::uint64_t>> buf(blocks_.size());
        RowEvaluator row(g_, f_, part_);
        const long i0 = t * cur.tile_rows, i1 = std::min(K, i0 + cur.tile_rows);
        for (long i = i0; i < i1; ++i) {
            const long j0 = i < old ? old : 0;
            if (j0 >= K) continue;
            row.run(ra_[i], rb_, j0, K, [&](long c, long j, std::uint64_t v) {
                const std::size_t a = static_cast<std::size_t>(g_.live[static_cast<std::size_t>(c)]);
                if (i < cur.side[a] && j < cur.side[a]) buf[a].push_back(v);
            });
        }
        throw_if_cancelled();  // a row cut short by a cancel is no tile (nothing is stored)
        // The sections, then one checksum word per section (read_sections checks the one it reads).
        std::string bytes;
        std::vector<std::uint64_t> sums(blocks_.size());
        for (std::size_t a = 0; a < blocks_.size(); ++a) {
            if (buf[a].size() != section(cur, t, cur.side[a])) throw internal_error("block store: tile section size");
            bytes.append(reinterpret_cast<const char*>(buf[a].data()), buf[a].size() * sizeof(std::uint64_t));
            sums[a] = checksum(buf[a].data(), buf[a].size() * sizeof(std::uint64_t), checksum_seed(tile_name(si, t) + " " + std::to_string(a)));
        }
        bytes.append(reinterpret_cast<const char*>(sums.data()), sums.size() * sizeof(std::uint64_t));
        return bytes;
    });
    return true;
}

void StoreBackend::rank(const std::vector<Block*>& open, bool last) {
    const long si = static_cast<long>(steps_.size()) - 1;
    auto degree = [&](long q) { return static_cast<std::size_t>(open[static_cast<std::size_t>(q)] - blocks_.data()); };
    auto rank_name = [&](long q) { return "r" + std::to_string(si) + "_" + std::to_string(degree(q)); };
    const long count = static_cast<long>(open.size());
    // On the GPU this process ranks one block at a time (each takes the device's memory).
    work_all(count, rank_name, [&](long q) { return rank_unit_text(rank_name(q), rank_block(degree(q), si)); },
             g_.dev.device == Device::cuda ? 1 : nt_);
    for (long q = 0; q < count; ++q) {
        Block& b = *open[static_cast<std::size_t>(q)];
        const std::string text = store_.get(rank_name(q), kRankUnitBytes);
        b.rank = parse_rank_unit(rank_name(q), text);
        if (b.rank < 0 || b.rank > b.side) {
            // at most kRankUnitBytes; its line breaks as \n, so the message stays one line
            // (invalid_input writes the other control bytes as \xHH)
            std::string shown;
            for (const char c : text) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
            throw invalid_input("block store '" + store_.dir() + "': rank unit " + rank_name(q) + " is damaged (it holds '" + shown +
                                "', not a rank 0.." + std::to_string(b.side) + " with its checksum, as written)");
        }
        // Every rank unit of this step is done: no one borders a ranked block's older LUs
        // again (a block the hints left unranked at a step keeps its last one).
        if (!last)
            for (long sp = 0; sp < si; ++sp) store_.remove(lu_name(sp, degree(q)));
    }
}

std::string StoreBackend::note() const {
    return "block store " + store_.dir() + ": " + std::to_string(units_here_.load()) + " of " + std::to_string(units_total_.load()) +
           " units computed by this process (the others were already there or done by another); " +
           (g_.dev.device == Device::cuda ? "this process's eliminations on the GPU: " + detail::device_time(device_s_.load()) + "; "
                                          : std::string());
}

std::string StoreBackend::tile_name(std::size_t step, long t) { return "e" + std::to_string(step) + "_" + std::to_string(t); }
// The LU a bordered rank unit of block a left at step s, when its rank was full and
// below the cap (the next step borders it): bytes k, p, the k row indices of the
// permutation, then the packed LU's k² entries by row, each a little-endian 64-bit word
// (this machine's order: a store is shared by processes of one kind of machine).
std::string StoreBackend::lu_name(long step, std::size_t a) { return "l" + std::to_string(step) + "_" + std::to_string(a); }

// Entries of a block of side `side` in tile t of step s: rows [t·R, …) ∩ [0, side), each
// with the columns [j0(i), side), j0(i) = old when i < old (the new columns of an old
// row) else 0. In a tile: blocks in increasing a, rows increasing, columns increasing.
std::size_t StoreBackend::section(const Step& s, long t, long side) {
    const long i0 = t * s.tile_rows, i1 = std::min(side, std::min(s.K, i0 + s.tile_rows));
    std::size_t n = 0;
    for (long i = i0; i < i1; ++i) n += static_cast<std::size_t>(std::max(0L, side - (i < s.old ? s.old : 0)));
    return n;
}

// Block a's rank at step si (the current one). Bordered: from the last LU a unit of the
// block left (step si − 1, or earlier when the block was not ranked since), only the later
// steps' sections read; else the whole block
// from every step's sections (the first step, a store written without bordering, or
// bordered off or on the GPU: ranked from scratch there).
long StoreBackend::rank_block(std::size_t a, long si) const {
    const long side = steps_.back().side[a];
    NmodMat m(side, side, g_.p);
    if (!bordered_) {
        read_sections(a, 0, m);
        double s = 0;
        const long r = rank_on(g_.dev, m, &s);
        device_s_.fetch_add(s);
        return r;
    }
    // The block's last LU: of the step before, or earlier when block hints left it unranked since.
    detail::BorderedLU lu;
    long from = 0;
    for (long sp = si - 1; sp >= 0 && from == 0; --sp)
        if (load_lu(sp, a, m, lu)) from = sp + 1;
    read_sections(a, static_cast<std::size_t>(from), m);
    const long r = lu.rank(m);
    if (r == side && side < blocks_[a].cap) put_lu(lu_name(si, a), m, lu);
    return r;
}

// Writes the unit row by row (never a second copy of the matrix in memory), then the
// checksum word of everything before it.
void StoreBackend::put_lu(const std::string& name, const NmodMat& m, const detail::BorderedLU& lu) const {
    const long k = lu.factored();
    store_.put_with(name, [&](int fd) {
        const std::string path = store_.dir() + "/" + name;
        std::vector<std::uint64_t> head{static_cast<std::uint64_t>(k), g_.p};
        for (const slong i : lu.permutation()) head.push_back(static_cast<std::uint64_t>(i));
        detail::write_all(fd, head.data(), head.size() * sizeof(std::uint64_t), path);
        std::uint64_t sum = checksum(head.data(), head.size() * sizeof(std::uint64_t), checksum_seed(name));
        // Row i of the packed LU is m's row i through its row pointer (FLINT's LU permutes
        // the pointers), contiguous there.
        for (long i = 0; i < k; ++i) {
            const std::size_t row = static_cast<std::size_t>(k) * sizeof(std::uint64_t);
            detail::write_all(fd, m.get()->rows[i], row, path);
            sum = checksum(m.get()->rows[i], row, sum);
        }
        detail::write_all(fd, &sum, sizeof sum, path);
    });
}

// Puts the LU of block a at step sp (when the store has it) in m's leading block and its
// permutation in lu; false when it is not there or not of the side step sp + 1 borders.
// Read in pieces of about 1 MiB; every word is checked (a damaged unit is refused: a zero
// on U's diagonal would otherwise reach FLINT's division).
bool StoreBackend::load_lu(long sp, std::size_t a, NmodMat& m, detail::BorderedLU& lu) const {
    const std::string name = lu_name(sp, a);
    if (!store_.done(name)) return false;
    const long k = steps_[static_cast<std::size_t>(sp)].side[a];
    if (k != steps_[static_cast<std::size_t>(sp) + 1].old || k >= m.rows()) return false;
    const auto damaged = [&](const std::string& why) {
        return invalid_input("block store '" + store_.dir() + "': unit " + name + " is damaged (" + why + ")");
    };
    const std::size_t ku = static_cast<std::size_t>(k);
    if (store_.size(name) != 8 * (2 + ku + ku * ku + 1)) throw damaged("size");
    std::uint64_t sum = checksum_seed(name);  // of every word read, against the last word
    const auto words = [&](std::size_t at, std::size_t count) {
        const std::string bytes = store_.get_range(name, 8 * at, 8 * count);
        sum = checksum(bytes.data(), bytes.size(), sum);
        std::vector<std::uint64_t> v(count);
        std::memcpy(v.data(), bytes.data(), 8 * count);
        return v;
    };
    const std::vector<std::uint64_t> head = words(0, 2 + ku);
    if (head[0] != ku || head[1] != g_.p) throw damaged("side or prime");
    std::vector<slong> perm(ku);
    for (std::size_t i = 0; i < ku; ++i) {
        if (head[2 + i] >= ku) throw damaged("permutation");
        perm[i] = static_cast<slong>(head[2 + i]);
    }
    try {
        lu = detail::BorderedLU(std::move(perm));
    } catch (const std::logic_error&) {
        throw damaged("permutation");
    }
    const long rows_per_piece = std::max(1L, (1L << 17) / k);
    for (long i0 = 0; i0 < k; i0 += rows_per_piece) {
        const long i1 = std::min(k, i0 + rows_per_piece);
        const std::vector<std::uint64_t> v = words(2 + ku + static_cast<std::size_t>(i0) * ku, static_cast<std::size_t>(i1 - i0) * ku);
        for (long i = i0; i < i1; ++i)
            for (long j = 0; j < k; ++j) {
                const std::uint64_t x = v[static_cast<std::size_t>(i - i0) * ku + static_cast<std::size_t>(j)];
                if (x >= g_.p) throw damaged("an entry not reduced mod p");
                if (i == j && x == 0) throw damaged("a zero on U's diagonal");
                nmod_mat_entry(m.get(), i, j) = x;
            }
    }
    const std::uint64_t want = sum;
    if (words(2 + ku + ku * ku, 1)[0] != want) throw damaged("its checksum differs");
    return true;
}

// Writes block a's entries from the sections of steps [from, current] into m (its
// side: the current one).
void StoreBackend::read_sections(std::size_t a, std::size_t from, NmodMat& m) const {
    for (std::size_t sj = from; sj < steps_.size(); ++sj) {
        const Step& s = steps_[sj];
        for (long t = 0; t < s.tiles; ++t) {
            std::size_t offset = 0, total = 0;  // words before block a's section; of every section
            for (std::size_t b = 0; b < s.side.size(); ++b) {
                const std::size_t nb = section(s, t, s.side[b]);
                if (b < a) offset += nb;
                total += nb;
            }
            const std::size_t n = section(s, t, s.side[a]);
            if (n == 0) continue;
            const std::string bytes = store_.get_range(tile_name(sj, t), offset * 8, n * 8);
            std::uint64_t want = 0;
            std::memcpy(&want, store_.get_range(tile_name(sj, t), (total + a) * 8, 8).data(), 8);
            if (checksum(bytes.data(), bytes.size(), checksum_seed(tile_name(sj, t) + " " + std::to_string(a))) != want)
                throw invalid_input("block store '" + store_.dir() + "': unit " + tile_name(sj, t) + " is damaged (the checksum of block " +
                                    std::to_string(a) + "'s entries differs)");
            const auto* v = reinterpret_cast<const std::uint64_t*>(bytes.data());
            std::size_t at = 0;
            const long i0 = t * s.tile_rows, i1 = std::min(s.side[a], std::min(s.K, i0 + s.tile_rows));
            for (long i = i0; i < i1; ++i)
                for (long j = i < s.old ? s.old : 0; j < s.side[a]; ++j) {
                    std::uint64_t x;
                    std::memcpy(&x, v + at++, sizeof x);
                    if (x >= g_.p)
                        throw invalid_input("block store '" + store_.dir() + "': unit " + tile_name(sj, t) +
                                            " holds an entry not reduced mod p (a damaged unit file)");
                    nmod_mat_entry(m.get(), i, j) = x;
                }
        }
    }
}

// Runs compute(u) for every unit not yet in the store, over threads, each unit by
// exactly one claimant among all processes; waits for units others hold.
template <class Name, class Compute>
void StoreBackend::work_all(long count, Name&& unit_name, Compute&& compute) {
    work_all(count, unit_name, compute, nt_);
}
template <class Name, class Compute>
void StoreBackend::work_all(long count, Name&& unit_name, Compute&& compute, int nt) {
    units_total_ += count;
    parallel(nt, [&](int tid) {
        for (;;) {
            bool pending = false;
            for (long u0 = 0; u0 < count && !cancel_requested(); ++u0) {
                const long u = (u0 + tid * count / nt) % count;  // threads start apart
                const std::string name = unit_name(u);
                if (store_.done(name)) continue;
                auto claim = store_.claim(name);
                if (!claim) {
                    pending = pending || !store_.done(name);
                    continue;
                }
                store_.put(name, compute(u));
                ++units_here_;
            }
            throw_if_cancelled();
            if (!pending) {
                bool all = true;
                for (long u = 0; u < count && all; ++u) all = store_.done(unit_name(u));
                if (all) return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));  // another process holds a unit
        }
    });
}

}  // namespace seprank::evaluation_detail
