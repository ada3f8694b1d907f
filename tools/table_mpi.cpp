#include "table_mpi.hpp"

#include "seprank/error.hpp"

#include <cstdint>
#include <cstdlib>
// The C API only: OpenMPI's deprecated C++ bindings do not compile warning-free.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

namespace seprank_cli {

using namespace seprank;

namespace {

void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw resource_limit(std::string("MPI call failed: ") + what);
}

void ensure_init() {
    int inited = 0;
    check(MPI_Initialized(&inited), "MPI_Initialized");
    if (!inited) check(MPI_Init(nullptr, nullptr), "MPI_Init");
}

constexpr int kTagRow = 7;

}  // namespace

bool mpi_requested() {
    const char* s = std::getenv("OMPI_COMM_WORLD_SIZE");
    return s != nullptr && std::atoi(s) > 1;
}

int mpi_rank() {
    ensure_init();
    int r = 0;
    check(MPI_Comm_rank(MPI_COMM_WORLD, &r), "MPI_Comm_rank");
    return r;
}

int mpi_size() {
    ensure_init();
    int n = 1;
    check(MPI_Comm_size(MPI_COMM_WORLD, &n), "MPI_Comm_size");
    return n;
}

void run_table_mpi(const std::vector<PlannedRow>& plan_in, const std::map<std::string, Row>& done_on_root,
                   const std::map<std::string, std::vector<long>>& hints_on_root, const EmitRow& emit, const Progress& progress, bool shared) {
    std::vector<PlannedRow> plan = plan_in;  // the resumed rows' block hints go in below
    ensure_init();
    int rank = 0, size = 1;
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");

    // Every rank planned the sweep itself, and rows travel by their index in the plan: the
    // plans must be one. They differ where the memory limit does (half of each node's
    // memory unless --max-memory is given), since a configuration too large to build on one
    // node is left out there only. Compared by row count and a hash of the row keys.
    std::uint64_t sig[2] = {static_cast<std::uint64_t>(plan.size()), seprank::plan_fingerprint(plan)};
    std::uint64_t lo[2], hi[2];
    check(MPI_Allreduce(sig, lo, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    check(MPI_Allreduce(sig, hi, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    if (lo[0] != hi[0] || lo[1] != hi[1])
        throw resource_limit("the MPI ranks planned different rows (" + std::to_string(plan.size()) + " here, " + std::to_string(lo[0]) +
                             " to " + std::to_string(hi[0]) + " over the ranks): a configuration too large to build on some nodes only? "
                             "give every rank the same --max-memory");

    // Broadcast the finished rows and the resumed rows' block hints (as JSON lines) from
    // rank 0: a hint line is {"hint_key": KEY, "hints": [...]}.
    std::string blob;
    if (rank == 0) {
        for (const auto& [k, v] : done_on_root) blob += to_json(v) + "\n";
        for (const auto& [k, h] : hints_on_root) {
            Row line;
            line.set("hint_key", k);
            line.set("hints", h);
            blob += to_json(line) + "\n";
        }
    }
    long len = static_cast<long>(blob.size());
    check(MPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    blob.resize(static_cast<std::size_t>(len));
    check(MPI_Bcast(blob.data(), static_cast<int>(len), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
    std::map<std::string, Row> done;
    std::map<std::string, std::vector<long>> hints;
    for (std::size_t at = 0; at < blob.size();) {
        const std::size_t nl = blob.find('\n', at);
        const Row r = record_from_json(blob.substr(at, nl - at), "resumed row");
        if (r.contains("hint_key")) hints[r.at("hint_key").str()] = r.at("hints").as_integer_list();
        else done[row_key(r)] = r;
        at = nl + 1;
    }
    seprank::apply_resume_hints(plan, hints);

    // Plan indices still to do, dealt round-robin.
    std::vector<std::size_t> todo;
    for (std::size_t k = 0; k < plan.size(); ++k)
        if (!done.count(row_key(plan[k].spec, plan[k].sweep))) todo.push_back(k);
    auto owner = [&](std::size_t j) { return static_cast<int>(j % static_cast<std::size_t>(size)); };

    if (shared) {
        for (std::size_t k = 0; k < plan.size(); ++k) {
            if (auto it = done.find(row_key(plan[k].spec, plan[k].sweep)); it != done.end()) {
                if (rank == 0) emit(it->second, false);
                continue;
            }
            if (rank == 0 && progress) progress(k, plan[k].spec);
            const Row row = table_row(plan[k].spec, plan[k].sweep);
            check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");  // every rank is done reading the row's store
            if (rank == 0) {
                emit(row, true);
                seprank::remove_row_store(plan[k]);
            }
        }
        check(MPI_Finalize(), "MPI_Finalize");
        return;
    }

    if (rank != 0) {
        for (std::size_t j = 0; j < todo.size(); ++j) {
            if (owner(j) != rank) continue;
            const std::size_t k = todo[j];
            const std::string msg = std::to_string(k) + "\n" + to_json(table_row(plan[k].spec, plan[k].sweep));
            check(MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, 0, kTagRow, MPI_COMM_WORLD), "MPI_Send");
        }
        check(MPI_Finalize(), "MPI_Finalize");
        return;
    }

    // Rank 0: compute its share, collect the others, emit in plan order.
    std::vector<Row> fresh(plan.size());
    std::vector<char> have(plan.size(), 0);
    std::size_t next = 0;  // next plan index to emit
    auto flush = [&] {
        while (next < plan.size()) {
            if (auto it = done.find(row_key(plan[next].spec, plan[next].sweep)); it != done.end()) {
                emit(it->second, false);
            } else if (have[next]) {
                emit(fresh[next], true);
            } else {
                break;
            }
            ++next;
        }
    };
    auto receive = [&](bool block) {
        for (;;) {
            int flag = 0;
            MPI_Status st;
            if (block) {
                check(MPI_Probe(MPI_ANY_SOURCE, kTagRow, MPI_COMM_WORLD, &st), "MPI_Probe");
                flag = 1;
            } else {
                check(MPI_Iprobe(MPI_ANY_SOURCE, kTagRow, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
            }
            if (!flag) return;
            int count = 0;
            check(MPI_Get_count(&st, MPI_CHAR, &count), "MPI_Get_count");
            std::string msg(static_cast<std::size_t>(count), '\0');
            check(MPI_Recv(msg.data(), count, MPI_CHAR, st.MPI_SOURCE, kTagRow, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
            const std::size_t nl = msg.find('\n');
            const std::size_t k = std::stoul(msg.substr(0, nl));
            fresh[k] = record_from_json(msg.substr(nl + 1), "row from rank " + std::to_string(st.MPI_SOURCE));
            have[k] = 1;
            if (block) return;
        }
    };
    for (std::size_t j = 0; j < todo.size(); ++j) {
        if (owner(j) != 0) continue;
        const std::size_t k = todo[j];
        if (progress) progress(k, plan[k].spec);
        fresh[k] = table_row(plan[k].spec, plan[k].sweep);
        have[k] = 1;
        receive(false);
        flush();
    }
    std::size_t got = 0;
    for (std::size_t k = 0; k < plan.size(); ++k) got += have[k];
    while (got < todo.size()) {
        receive(true);
        ++got;
        flush();
    }
    flush();
    check(MPI_Finalize(), "MPI_Finalize");
}

}  // namespace seprank_cli
