// seprank CLI — distributed table sweeps over MPI (built with -Dmpi=enabled or auto when
// OpenMPI is found; SEPRANK_HAVE_MPI is then defined). It lives in the CLI, not in
// libseprank, so the library links no MPI.
//
// Every rank builds the same plan. Rank 0 reads the resume file and broadcasts the
// finished keys. The rows still to do are dealt round-robin (the j-th row to do goes to
// rank j mod K); each rank computes its rows and sends each finished row to rank 0,
// which also computes its own share and emits rows strictly in plan order as soon as
// the next one is available. Output is therefore identical to the serial run except
// the timing and memory columns. Only rank 0 calls emit. With shared = true the ranks
// work on one row at a time together instead (below).
#pragma once

#include "seprank/table.hpp"

#include <map>
#include <string>
#include <vector>

namespace seprank_cli {

using seprank::EmitRow;
using seprank::PlannedRow;
using seprank::Progress;
using seprank::Row;

// True when the process was started by mpirun with more than one rank
// (OMPI_COMM_WORLD_SIZE > 1); MPI is then initialised on first use.
bool mpi_requested();
int mpi_rank();
// The number of ranks (MPI_COMM_WORLD's size), for the summary line.
int mpi_size();
// Distributed engine; must be called by every rank with the same plan: checked first
// (the row count and a hash of the row keys, two all-reduces), resource_limit on every rank
// where the plans differ (nodes with different memory limits leave out different
// configurations as too large). `done` and `hints` (ResumeSet's: the block hints of the
// rows resumed at a larger max side) matter on rank 0 only: both are broadcast, so every
// rank computes a row with the same hints. Finalises MPI before returning.
// shared (table --block-store): instead of dealing whole rows, every rank computes every
// row still to do, in plan order, through the row's block store (table.hpp row_store),
// so the ranks share each row's evaluation tiles and block ranks; rows without a graded
// evaluation are computed by every rank (the same value). After each row a barrier, then
// rank 0 emits it and removes its store.
void run_table_mpi(const std::vector<PlannedRow>& plan, const std::map<std::string, Row>& done,
                   const std::map<std::string, std::vector<long>>& hints, const EmitRow& emit, const Progress& progress,
                   bool shared = false);

}  // namespace seprank_cli
