#include "block_store.hpp"

#include "base/file_io.hpp"

#include <cstdint>
#include <cstdio>
#include <dirent.h>
#include <sys/file.h>

namespace seprank::detail {

namespace {

// PATH's first max_bytes + 1 bytes at most: enough to tell a file of at most max_bytes
// (its whole content) from a longer one. PATH must be a regular file (a unit or meta this
// store wrote; a symlink to one is followed): a device or a FIFO is refused unread
// (opened without blocking). invalid_input naming `what` and PATH otherwise.
std::string read_head(const std::string& path, const std::string& what, std::size_t max_bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw invalid_input("cannot open " + what + " '" + path + "': " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        ::close(fd);
        throw invalid_input("cannot read " + what + " '" + path + "': " + errno_text(e));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw invalid_input(what + " '" + path + "' is " + file_kind(st) + ", not a file the store wrote: a damaged store");
    }
    std::string out(max_bytes + 1, '\0');
    std::size_t have = 0;
    while (have < out.size()) {
        const ssize_t n = ::read(fd, out.data() + have, out.size() - have);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            ::close(fd);
            throw invalid_input("cannot read " + what + " '" + path + "': " + errno_text(e));
        }
        if (n == 0) break;
        have += static_cast<std::size_t>(n);
    }
    ::close(fd);
    out.resize(have);
    return out;
}

// The name of an entry of DIR that a store's unit would be: not meta, not a lock
// (NAME.lock), not a temporary or other dot file; "" when there is none. Linear in the
// folder's entries.
std::string first_unit(const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return {};
    std::string found;
    while (const dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        const bool lock = n.size() > 5 && n.compare(n.size() - 5, 5, ".lock") == 0;
        if (n.empty() || n[0] == '.' || n == "meta" || lock) continue;
        found = n;
        break;
    }
    ::closedir(d);
    return found;
}

}  // namespace

void check_store_directory(const std::string& dir, const std::string& what) {
    for (const char c : dir)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            throw invalid_input(what + " '" + cut(dir) + "' contains a control character" + (c == '\0' ? " (a NUL byte)" : "") +
                                ": refusing to make a directory of that name");
}

void ensure_directory(const std::string& dir, const std::string& what) {
    if (dir.empty()) throw invalid_input(what + ": empty directory name");
    check_store_directory(dir, what);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        throw invalid_input(what + " '" + dir + "': cannot create it: " + errno_text(errno));
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) throw invalid_input(what + " '" + dir + "' is not a directory");
}

BlockStore::BlockStore(const std::string& dir, const std::string& signature) : dir_(dir) {
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    // The folder of the whole run (generic's STORE, whose trial<t> this is) may be missing too.
    if (const auto slash = dir_.rfind('/'); slash != std::string::npos && slash > 0 && ::access(dir_.substr(0, slash).c_str(), F_OK) != 0)
        ensure_directory(dir_.substr(0, slash), "block store");
    ensure_directory(dir_, "block store");
    // The first process writes meta; every other one (or a resumed run) must match it.
    const std::string meta = dir_ + "/meta";
    const int fd = ::open((dir_ + "/meta.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) throw invalid_input("block store '" + dir + "': cannot open its lock: " + errno_text(errno));
    while (::flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            const int e = errno;
            ::close(fd);
            throw invalid_input("block store '" + dir + "': cannot lock it: " + errno_text(e));
        }
    }
    try {
        if (::access(meta.c_str(), F_OK) == 0) {
            // Read up to one byte past the signature and its newline: a longer meta differs (and
            // the message quotes no more than that).
            const std::string have = read_head(meta, "block store meta", signature.size() + 1);
            if (have.size() > signature.size() + 1 && have.compare(0, signature.size() + 1, signature + "\n") == 0)
                throw invalid_input("block store '" + dir + "': its meta holds more than its computation's signature (a damaged store): remove it");
            // The signature's first words name the format ("seprank graded evaluation 2"): a
            // store of another format (1: units without checksums) is said to be one.
            const auto format = [](const std::string& t) { return t.substr(0, t.find(';')); };
            if (have != signature + "\n" && format(have) != format(signature) && format(have).rfind("seprank graded evaluation ", 0) == 0)
                throw invalid_input("block store '" + dir + "' was written in another format ('" + cut(format(have)) + "'; this seprank writes '" +
                                    format(signature) + "', whose units carry checksums): use another directory or remove it");
            if (have != signature + "\n")
                throw invalid_input("block store '" + dir + "' belongs to another computation (its meta is '" +
                                    have.substr(0, have.find('\n')) + "'): use another directory or remove it");
        } else {
            // Units without the signature they were computed under (meta removed, or the
            // folder copied without it): their computation is unknown, so they are refused
            // rather than adopted under this one's signature (a hunt, 2026-12-02: another
            // network's units were reused and its rank reported with a failure bound).
            // Locks and temporaries (dot files) are no units.
            if (const std::string unit = first_unit(dir_); !unit.empty())
                throw invalid_input("block store '" + dir + "' holds units ('" + cut(unit) +
                                    "') but no meta, the signature of the computation they belong to: use another directory or remove it");
            write_file_atomically(meta, signature + "\n", "block store meta");
        }
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);  // releases the lock
}

bool BlockStore::done(const std::string& name) const { return ::access((dir_ + "/" + name).c_str(), F_OK) == 0; }

BlockStore::Claim::~Claim() {
    if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

std::optional<BlockStore::Claim> BlockStore::claim(const std::string& name) const {
    if (done(name)) return std::nullopt;
    const std::string lock = dir_ + "/" + name + ".lock";
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) throw invalid_input("block store: cannot open '" + lock + "': " + errno_text(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        ::close(fd);
        if (e == EWOULDBLOCK || e == EINTR) return std::nullopt;
        throw invalid_input("block store: cannot lock '" + lock + "': " + errno_text(e));
    }
    Claim c(fd);
    if (done(name)) return std::nullopt;  // finished by the previous holder meanwhile
    return c;
}

void BlockStore::put(const std::string& name, const std::string& bytes) const {
    write_file_atomically(dir_ + "/" + name, bytes, "block store unit");
}

std::string BlockStore::get(const std::string& name, std::size_t max_bytes) const {
    const std::string path = dir_ + "/" + name;
    std::string text = read_head(path, "block store unit", max_bytes);
    if (text.size() > max_bytes)
        throw invalid_input("block store unit '" + path + "' is damaged: longer than the " + std::to_string(max_bytes) + " bytes such a unit holds");
    return text;
}

void BlockStore::remove(const std::string& name) const noexcept { ::unlink((dir_ + "/" + name).c_str()); }

std::size_t BlockStore::size(const std::string& name) const {
    struct stat st {};
    if (::stat((dir_ + "/" + name).c_str(), &st) != 0) throw invalid_input("cannot read block store unit '" + dir_ + "/" + name + "': " + errno_text(errno));
    return static_cast<std::size_t>(st.st_size);
}

bool remove_block_store(const std::string& dir) noexcept {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return errno == ENOENT;
    bool ok = true, meta = false;
    while (const dirent* e = ::readdir(d)) {
        const std::string n = e->d_name, path = dir + "/" + n;
        if (n == "." || n == "..") continue;
        if (n == "meta") {  // last: a removal stopped half-way leaves units with their meta,
            meta = true;    // a store still resumed, never units without it (refused)
            continue;
        }
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) ok = remove_block_store(path) && ok;  // a trial's store
        else ok = ::unlink(path.c_str()) == 0 && ok;
    }
    ::closedir(d);
    if (meta) ok = ok && ::unlink((dir + "/meta").c_str()) == 0;  // kept while any unit is
    return ::rmdir(dir.c_str()) == 0 && ok;
}

std::string BlockStore::get_range(const std::string& name, std::size_t offset, std::size_t bytes) const {
    const std::string path = dir_ + "/" + name;
    std::string out(bytes, '\0');  // before open: a failed allocation leaks no descriptor
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw invalid_input("cannot open block store unit '" + path + "': " + errno_text(errno));
    std::size_t done = 0;
    while (done < bytes) {
        const ssize_t n = ::pread(fd, out.data() + done, bytes - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int e = n < 0 ? errno : 0;
            ::close(fd);
            throw invalid_input("block store unit '" + path + "' is shorter than expected" + (e ? ": " + errno_text(e) : std::string()));
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return out;
}

}  // namespace seprank::detail
