// seprank — the umbrella header: includes every public header of the library, so that
// `#include <seprank/seprank.hpp>` gives the whole API. Prefer the module headers
// where compile time matters.
// Kept in step with the installed header list by tests/headers_test.sh.
#pragma once

#include "seprank/version.hpp"

#include "seprank/answer.hpp"
#include "seprank/bounds.hpp"
#include "seprank/columns.hpp"
#include "seprank/degree.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/examples.hpp"
#include "seprank/expand.hpp"
#include "seprank/flatten.hpp"
#include "seprank/forward.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/generic.hpp"
#include "seprank/grid.hpp"
#include "seprank/integer.hpp"
#include "seprank/matrix.hpp"
#include "seprank/matrix_io.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/plot.hpp"
#include "seprank/poly.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/record.hpp"
#include "seprank/rank.hpp"
#include "seprank/separation.hpp"
#include "seprank/table.hpp"
#include "seprank/verify.hpp"
