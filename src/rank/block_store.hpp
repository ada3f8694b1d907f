// Private: a directory of finished work units shared by the processes (or MPI ranks, or
// threads) that compute one graded evaluation together (docs/evaluation.md, "Block
// store"). A unit is named by a short string; its result is a file of that name.
//
//   - open: DIR is created when missing (and its parent when that is missing: the folder
//     of a generic run whose trial DIR is); DIR/meta holds the
//     signature of the computation. A store whose meta differs is refused
//     (invalid_input naming DIR), so a store never mixes two computations; at most the
//     signature's length and two bytes of it are read (a meta that is a device or a FIFO
//     is refused unread). DIR must have no control character (check_store_directory).
//   - claim(name): a non-blocking exclusive flock(2) on DIR/name.lock. It fails when
//     another holder works on the unit or the unit is already done. The kernel drops the
//     lock of a killed process, so its unit can be claimed again: a kill loses at most
//     the units its threads held.
//   - put(name, bytes): written to a temporary file in DIR, fsync'ed, renamed to
//     DIR/name (atomic), so a unit file is either complete or absent.
//   - get(name, max_bytes): the whole file, which holds at most max_bytes (invalid_input
//     when missing, unreadable, not a regular file or longer: a damaged unit; a unit
//     linked to /dev/zero costs max_bytes + 1 bytes read, not the memory limit).
//   - remove(name): unlinks a unit no process needs any more (a bordered elimination's
//     LU of two steps ago, evaluation_store.cpp).
#pragma once

#include "base/file_io.hpp"
#include "base/hash.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace seprank::detail {

class BlockStore {
public:
    BlockStore(const std::string& dir, const std::string& signature);
    const std::string& dir() const noexcept { return dir_; }
    bool done(const std::string& name) const;
    // A held claim; the lock is released (and its lock file left for reuse) on destruction.
    class Claim {
    public:
        explicit Claim(int fd) noexcept : fd_(fd) {}
        Claim(Claim&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
        Claim& operator=(Claim&&) = delete;
        Claim(const Claim&) = delete;
        Claim& operator=(const Claim&) = delete;
        ~Claim();

    private:
        int fd_;
    };
    std::optional<Claim> claim(const std::string& name) const;
    void put(const std::string& name, const std::string& bytes) const;
    // put, the bytes written piece by piece by write(fd) (with write_all, file_io.hpp).
    template <class Write>
    void put_with(const std::string& name, Write&& write) const {
        write_file_atomically_with(dir_ + "/" + name, std::forward<Write>(write), "block store unit");
    }
    // The size in bytes of DIR/name (invalid_input when it cannot be read).
    std::size_t size(const std::string& name) const;
    std::string get(const std::string& name, std::size_t max_bytes) const;
    // `bytes` bytes of DIR/name from `offset` (invalid_input when the file is shorter).
    std::string get_range(const std::string& name, std::size_t offset, std::size_t bytes) const;
    // Removes DIR/name when it is there (a unit no one needs any more); no error otherwise.
    void remove(const std::string& name) const noexcept;

private:
    std::string dir_;
};

// Removes DIR, its files and its folders (the stores of a row's trials); symlinks are
// removed, never followed; a missing
// DIR is not an error. Its meta goes last, and only once every unit is gone: a removal
// stopped or failing half-way leaves a store that resumes, not units without their
// signature (which BlockStore refuses). Returns false when something could not be removed.
bool remove_block_store(const std::string& dir) noexcept;

// Throws invalid_input naming `what` and DIR unless DIR, a block store folder a run
// creates, has no control character (a byte below 0x20, NUL included, or 0x7f): a line
// break or an escape would follow the folder into every listing, and a NUL ends the name
// the system sees ("/tmp/s\0x" made /tmp/s). The options that name a store are checked
// by it before anything is created (check_options of EvaluationOptions and
// GenericOptions, plan_sweep), and ensure_directory checks again. O(|DIR|).
void check_store_directory(const std::string& dir, const std::string& what);

// Creates DIR when missing (its parent must exist); invalid_input naming `what` when it
// cannot, when DIR is not a directory, or when check_store_directory refuses its name
// (nothing is created then).
void ensure_directory(const std::string& dir, const std::string& what);

// fnv1a and fnv1a_hex (base/hash.hpp) name stores and fingerprint plans and weights.

}  // namespace seprank::detail
