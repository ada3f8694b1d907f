// Private: the temporary files the library has open and the child processes it waits
// for, kept in one registry so that an interrupted run leaves neither behind
// (docs/cancel.md, "Interrupts"; install_interrupt_cleanup in cancel.hpp).
//
// Every step that makes, renames or removes a registered temporary, or starts or reaps a
// registered child, runs under the registry's one lock, and so does clean_up_registered.
// Hence a temporary is never on disk unregistered, nor registered after its rename, and
// a child never runs unregistered: the clean-up sees every one, and none comes after it
// while its caller holds the lock it returns.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <sys/types.h>

namespace seprank::detail {

// Makes a new file from `name`, a template whose last `suffix_len` bytes follow
// "XXXXXX" (mkostemps: the X become a unique random name; O_CLOEXEC, mode 0600), and
// registers it. Returns its descriptor and leaves its name in `name`; -1 with errno set
// when it cannot be made (nothing registered then). The template is not checked beyond
// what mkostemps checks (EINVAL). Cost: one file creation, O(1) besides.
int make_temporary(std::string& name, int suffix_len);

// Renames the registered temporary `tmp` over `path` and forgets it; on failure removes
// it (and forgets it) and returns errno, else 0. Never throws. Cost: one rename, plus a
// search of the registry (O(temporaries registered)).
int commit_temporary(const std::string& tmp, const std::string& path) noexcept;

// Removes the registered temporary `tmp` (unlink, whether or not it still exists) and
// forgets it. Never throws. Cost: one unlink plus the registry search.
void remove_temporary(const std::string& tmp) noexcept;

// Runs `spawn` under the registry's lock and registers the process id it returns when
// that is > 0 (≤ 0: none started, nothing registered). Returns that id. Throws what
// `spawn` throws, or std::bad_alloc. Cost: that of `spawn`.
pid_t spawn_registered(const std::function<pid_t()>& spawn);

// Waits for the registered child `pid` to end, forgets it and reaps it, in that order
// (it stays a zombie, its id never reused, while registered). Returns its wait status
// (waitpid's), or -1 when it cannot be waited for. Never throws. Blocks until the child
// ends.
int wait_registered(pid_t pid) noexcept;

// What an interrupt does (install_interrupt_cleanup): takes the registry's lock, ends
// every registered child (SIGTERM; SIGKILL after about 2 s) and waits until each has
// ended (not reaping it), then removes every registered temporary and forgets them all.
// Returns the lock still held: while the caller keeps it, no temporary or child can be
// made, renamed or reaped (the interrupt handling keeps it until the process dies; a
// test lets it go). Never throws. Cost: one kill and wait per child, one unlink per
// temporary.
std::unique_lock<std::mutex> clean_up_registered() noexcept;

// The number of temporaries registered now (for tests). O(1).
std::size_t registered_temporaries() noexcept;

}  // namespace seprank::detail
