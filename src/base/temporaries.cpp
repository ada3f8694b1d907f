#include "temporaries.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace seprank::detail {

namespace {

struct Registry {
    std::mutex lock;
    std::vector<std::string> files;
    std::vector<pid_t> children;
};

// Never destroyed: the interrupt thread may use it while the process exits.
Registry& registry() {
    static Registry* r = new Registry;
    return *r;
}

void forget_file(Registry& r, const std::string& name) {
    const auto it = std::find(r.files.begin(), r.files.end(), name);
    if (it != r.files.end()) r.files.erase(it);
}

// Whether `pid` has ended (without reaping it); true too when it is not ours to wait for.
bool ended(pid_t pid, bool block) {
    siginfo_t info{};
    for (;;) {
        info.si_pid = 0;
        if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG)) == 0) return info.si_pid == pid;
        if (errno != EINTR) return true;  // ECHILD: reaped already, or never ours
    }
}

}  // namespace

int make_temporary(std::string& name, int suffix_len) {
    Registry& r = registry();
    const std::lock_guard<std::mutex> hold(r.lock);
    r.files.reserve(r.files.size() + 1);  // the registration below cannot fail once the file exists
    const int fd = ::mkostemps(name.data(), suffix_len, O_CLOEXEC);
    if (fd >= 0) r.files.push_back(name);
    return fd;
}

int commit_temporary(const std::string& tmp, const std::string& path) noexcept {
    Registry& r = registry();
    const std::lock_guard<std::mutex> hold(r.lock);
    int e = 0;
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        e = errno;
        ::unlink(tmp.c_str());
    }
    forget_file(r, tmp);
    return e;
}

void remove_temporary(const std::string& tmp) noexcept {
    Registry& r = registry();
    const std::lock_guard<std::mutex> hold(r.lock);
    ::unlink(tmp.c_str());
    forget_file(r, tmp);
}

pid_t spawn_registered(const std::function<pid_t()>& spawn) {
    Registry& r = registry();
    const std::lock_guard<std::mutex> hold(r.lock);
    r.children.reserve(r.children.size() + 1);
    const pid_t pid = spawn();
    if (pid > 0) r.children.push_back(pid);
    return pid;
}

int wait_registered(pid_t pid) noexcept {
    (void)ended(pid, true);  // it stays a zombie: its id cannot go to another process meanwhile
    Registry& r = registry();
    const std::lock_guard<std::mutex> hold(r.lock);
    const auto it = std::find(r.children.begin(), r.children.end(), pid);
    if (it != r.children.end()) r.children.erase(it);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return status;
}

std::unique_lock<std::mutex> clean_up_registered() noexcept {
    Registry& r = registry();
    std::unique_lock<std::mutex> hold(r.lock);
    // The children first: a child still running could make its output again after the
    // unlink. Registered children are unreaped (wait_registered reaps under the lock), so
    // each id is still that child's.
    for (const pid_t pid : r.children) ::kill(pid, SIGTERM);
    for (const pid_t pid : r.children) {
        bool gone = false;
        for (int k = 0; k < 200 && !(gone = ended(pid, false)); ++k) {
            const timespec ten_ms{0, 10'000'000};
            ::nanosleep(&ten_ms, nullptr);
        }
        if (!gone) {
            ::kill(pid, SIGKILL);
            (void)ended(pid, true);
        }
    }
    r.children.clear();
    for (const std::string& name : r.files) ::unlink(name.c_str());
    r.files.clear();
    return hold;
}

std::size_t registered_temporaries() noexcept {
    Registry& r = registry();
    const std::lock_guard<std::mutex> hold(r.lock);
    return r.files.size();
}

}  // namespace seprank::detail
