// Private: the product variants of poly.hpp over Z (MulVariant). docs/poly.md#products
// states the identities; tests/algebra/test_poly.cpp checks every variant against FLINT's product.
#pragma once

#include "seprank/poly.hpp"

#include <flint/fmpz_mpoly.h>
#include <vector>

namespace seprank::detail {

// r = a·b in Z[x] by variant v (automatic picks per product). r may alias a or b.
// groups[k] is the group of variable k (its token; any grouping gives the same product,
// it only shapes the dense variant's arrays). threads: workers of the dense variant.
// stats (may be null): each word-size product counted under the method that formed it.
// Throws `cancelled` (cancel.hpp) when a cancel is requested during a dense product.
void zmpoly_mul(fmpz_mpoly_struct* r, const fmpz_mpoly_struct* a, const fmpz_mpoly_struct* b,
                const fmpz_mpoly_ctx_struct* ctx, const std::vector<long>& groups, MulVariant v, int threads,
                MulStats* stats);

}  // namespace seprank::detail
