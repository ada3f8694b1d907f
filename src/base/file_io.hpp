// Private: the one place where seprank reads input files and writes output files, so
// that every file follows the same rules (docs/usage.md §1.2):
//   - input (read_input_file, read_fd): a directory, a missing or unreadable file is
//     invalid_input naming the file and its role; an input whose parse would need more
//     than the memory limit (its size times the reader's bytes-per-byte factor) is
//     resource_limit, found before reading a regular file and while reading anything
//     else (devices, pipes): the read stops there.
//   - output (write_file_atomically): the text goes to a fresh temporary file in the
//     same folder (`.NAME.tmp.XXXXXX`, temporary_template), is flushed to disk, then
//     renamed over PATH (atomic on POSIX). PATH must be a regular file or not exist: a
//     symlink, FIFO, device or directory is refused (never followed, never replaced). On
//     any failure the temporary is removed and PATH is untouched; the temporary is
//     registered while it exists (temporaries.hpp), so an interrupt removes it too.
//   - append-only outputs (table --out) open PATH with open_regular_rw: same checks,
//     O_NOFOLLOW, and the caller appends whole lines with write_all.
// Write failures (a full disk) are resource_limit; a path that cannot be created is
// invalid_input.
#pragma once

#include "temporaries.hpp"

#include "seprank/error.hpp"
#include "seprank/limits.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <vector>
#include <sys/stat.h>
#include <unistd.h>

namespace seprank::detail {

inline std::string errno_text(int e) { return std::strerror(e); }

// The error for a file that could not be made or written (errno e): a full disk or quota
// is resource_limit (exit 3), anything else invalid_input (a path that cannot be
// written, exit 2). `message` says what failed. O(1).
[[noreturn]] inline void throw_file_error(int e, const std::string& message) {
    if (e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO) throw resource_limit(message + ": " + errno_text(e));
    throw invalid_input(message + ": " + errno_text(e));
}

// The memory a table's parse (guess, plot) needs per byte of its text, at most: a CSV
// cell of one character and its comma (2 bytes) becomes a (column, text) pair of two
// std::strings (64 bytes), a point of a few words follows, and vectors grow by doubling.
// A table is read only while its text times this fits the memory limit, so /dev/zero or
// an endless pipe costs limit/64 bytes before the refusal.
constexpr double kTableBytesPerByte = 64;

// The directory a path names its last component in: "." for a bare name, "/" for "/x".
// The path is taken as written (a trailing '/' is the caller's to strip). Linear.
inline std::string parent_directory(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
}

// What kind of thing is at PATH (without following a symlink), in words.
inline const char* file_kind(const struct stat& st) {
    if (S_ISLNK(st.st_mode)) return "a symbolic link";
    if (S_ISDIR(st.st_mode)) return "a directory";
    if (S_ISFIFO(st.st_mode)) return "a FIFO";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
    if (S_ISSOCK(st.st_mode)) return "a socket";
    return "not a regular file";
}

// Throws unless PATH has no control character and does not exist or is a regular file
// (symlinks are not followed), in
// a directory that exists and can be written (the file is written beside itself and
// renamed): a run checks its output paths before its work, so a bad one costs nothing.
inline void check_output_target(const std::string& path, const std::string& what) {
    if (path.empty()) throw invalid_input(what + ": empty file name");
    // a line break or an escape in a name this run makes would follow the file into every
    // listing and script that reads it: refused, as a name the user almost surely did not mean
    for (const char c : path)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            throw invalid_input(what + " '" + path + "' contains a control character: refusing to make a file of that name");
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno != ENOENT) throw invalid_input("cannot write " + what + " '" + path + "': " + errno_text(errno));
    } else if (!S_ISREG(st.st_mode)) {
        throw invalid_input(what + " '" + path + "' is " + file_kind(st) +
                            ": refusing to replace it (expected a regular file or a new name)");
    }
    const std::string dir = parent_directory(path);
    struct stat ds {};
    if (::stat(dir.c_str(), &ds) != 0)
        throw invalid_input("cannot write " + what + " '" + path + "': its directory '" + dir + "': " + errno_text(errno));
    if (!S_ISDIR(ds.st_mode)) throw invalid_input("cannot write " + what + " '" + path + "': '" + dir + "' is not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw invalid_input("cannot write " + what + " '" + path + "': its directory '" + dir + "': " + errno_text(errno));
    // The file is written beside itself: a folder whose mode allows it may still refuse a
    // new file (/proc, a read-only mount), which would show only after the work.
    std::string probe = (dir == "/" ? std::string() : dir) + "/.seprank-probe.XXXXXX";
    const int fd = make_temporary(probe, 0);
    if (const int e = errno; fd < 0)
        throw_file_error(e, "cannot write " + what + " '" + path + "': no new file can be made in its directory '" + dir + "'");
    ::close(fd);
    remove_temporary(probe);
}

// Where a table's text starts: after a UTF-8 byte-order mark (3), else 0 (an editor or a
// spreadsheet may write one before the first line; it is never part of the first column's
// name). Every table reader (guess, plot, table --resume, --hint-blocks) asks this first.
// Throws invalid_input when the text is not UTF-8 as a table reader expects: a UTF-16 or
// UTF-32 byte-order mark (FF FE, FE FF, 00 00 FE FF), or a NUL byte in its first two
// (UTF-16 without a mark), named with the file (source, e.g. "table 'x.csv'") and how to
// convert it, where a reader would otherwise report a confusing header or cell count; and
// when any byte begins no UTF-8 character: named by the file's format where its first
// bytes mark one (gzip, xz, zstd, bzip2, zip, ELF, PDF), else by the first byte of no valid
// UTF-8 character (a lead byte without its continuation, or a byte no character begins
// with) and its place. Linear in the text (one pass, ASCII bytes one comparison each).
// Throws invalid_input when TEXT is UTF-16 or UTF-32 where `kind` ("tables", "JSON
// files", "matrix files") is read as UTF-8: by its byte-order mark, or (UTF-16 without
// one) by a NUL byte in its first two bytes, which an ASCII first character has there;
// named with the file (source) and how to convert it. O(1).
inline void check_not_utf16(std::string_view text, const std::string& source, const char* kind) {
    const auto starts = [&](std::string_view m) { return text.substr(0, m.size()) == m; };
    using namespace std::string_view_literals;
    const char* mark = starts("\x00\x00\xFE\xFF"sv) || starts("\xFF\xFE\x00\x00"sv) ? "UTF-32"
                       : starts("\xFF\xFE"sv) || starts("\xFE\xFF"sv)                 ? "UTF-16"
                                                                                        : nullptr;
    if (mark)
        throw invalid_input(source + " is " + mark + " (its byte-order mark): " + kind + " are read as UTF-8; convert it, e.g. iconv -f " + mark +
                            " -t UTF-8");
    // UTF-16 without a mark: its first character, ASCII in any of these files, has a NUL
    // byte (a NUL later is left to the reader, which names its place); its byte order from
    // where (without a mark, iconv's plain UTF-16 assumes one)
    if (text.size() >= 2 && (text[0] == '\0' || text[1] == '\0')) {
        const bool big = text[0] == '\0';
        throw invalid_input(source + " holds a NUL byte at byte " + (big ? "1" : "2") + ": " + kind + " are UTF-8 text (a UTF-16" +
                            (big ? "BE" : "LE") + " file without a byte-order mark? convert it, e.g. iconv -f UTF-16" + (big ? "BE" : "LE") +
                            " -t UTF-8)");
    }
}

inline std::size_t table_text_start(std::string_view text, const std::string& source) {
    const auto starts = [&](std::string_view m) { return text.substr(0, m.size()) == m; };
    using namespace std::string_view_literals;
    check_not_utf16(text, source, "tables");
    // Not UTF-8 at all (a compressed table, a spreadsheet's own format, a binary given by
    // mistake): named by its first bytes where they are a known format's mark, else by
    // the first byte that begins no UTF-8 character, rather than by whatever the reader
    // made of its bytes (a carriage return inside a line, a header with no such column).
    // A sequence cut by the text's end (a table torn while written) is the reader's.
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        if (const std::size_t n = utf8_sequence(text, i); n > 0) {
            i += n;
            continue;
        }
        const std::size_t lead = utf8_lead_length(c);
        if (lead > 0 && i + lead > text.size() &&
            std::all_of(text.begin() + static_cast<std::ptrdiff_t>(i) + 1, text.end(), [](char b) { return (static_cast<unsigned char>(b) & 0xc0) == 0x80; }))
            break;
        // The format a file's first bytes mark, and what to do with it.
        struct Mark {
            std::string_view bytes;
            const char* what;
            const char* advice;
        };
        static constexpr Mark marks[] = {
            {"\x1F\x8B"sv, "a gzip-compressed file", "decompress it first (gunzip)"},
            {"\xFD" "7zXZ"sv, "an xz-compressed file", "decompress it first (unxz)"},
            {"\x28\xB5\x2F\xFD"sv, "a zstd-compressed file", "decompress it first (unzstd)"},
            {"BZh"sv, "a bzip2-compressed file", "decompress it first (bunzip2)"},
            {"PK\x03\x04"sv, "a zip archive", "a spreadsheet's .xlsx or .ods? save the table as CSV"},
            {"\x7F" "ELF"sv, "an executable (ELF)", "give the table's file"},
            {"%PDF"sv, "a PDF document", "give the table's file"},
        };
        for (const Mark& m : marks)
            if (starts(m.bytes)) throw invalid_input(source + " is " + m.what + ", not UTF-8 text as tables are: " + m.advice);
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", c);
        const long line = 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(i), '\n'));
        throw invalid_input(source + " is not UTF-8 text: byte " + std::to_string(i + 1) + " (line " + std::to_string(line) + ") is " + hex +
                            (lead > 0 ? ", not followed by the rest of a valid UTF-8 character" : ", which begins no UTF-8 character") +
                            ": tables are UTF-8 text (a binary file? Latin-1 text converts with iconv -f LATIN1 -t UTF-8)");
    }
    return starts("\xEF\xBB\xBF"sv) ? 3 : 0;
}

// Throws invalid_input when a table's header names a column twice (which one would a
// reader mean?): "WHERE: column 'NAME' appears twice in the header" (where: the file and
// line). guess and plot ask it. O(columns²), a header's few.
inline void check_unique_header(const std::vector<std::string>& cells, const std::string& where) {
    for (std::size_t i = 0; i < cells.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (cells[i] == cells[j]) throw invalid_input(where + ": column '" + cut(cells[i]) + "' appears twice in the header");
}

// The template of a temporary beside PATH (for make_temporary, temporaries.hpp):
// `DIR/.NAME.tmp.XXXXXX` followed by `suffix`, where NAME is PATH's last component cut
// (at a UTF-8 character's start) so that the whole name stays within 255 bytes, the
// longest name Linux's file systems take (NAME_MAX): an output name near that limit
// still gets a temporary. Precondition (not checked): suffix is at most 64 bytes.
// Linear in the path.
inline std::string temporary_template(const std::string& path, const std::string& suffix) {
    const std::size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    constexpr std::size_t kNameMax = 255;
    const std::size_t room = kNameMax - std::string_view(".").size() - std::string_view(".tmp.XXXXXX").size() - suffix.size();
    if (base.size() > room) {
        std::size_t cut = room;
        while (cut > 0 && (static_cast<unsigned char>(base[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
        base.resize(cut);
    }
    return dir + "." + base + ".tmp.XXXXXX" + suffix;
}

// Writes `size` bytes from `data` to fd, through short writes and EINTR (resource_limit
// naming path on failure).
inline void write_all(int fd, const void* data, std::size_t size, const std::string& path) {
    const char* bytes = static_cast<const char*>(data);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, bytes + done, size - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw resource_limit("writing '" + path + "' failed: " + errno_text(errno));
        }
        done += static_cast<std::size_t>(n);
    }
}

inline void write_all(int fd, const std::string& text, const std::string& path) { write_all(fd, text.data(), text.size(), path); }

// write_file_atomically with the contents produced piece by piece: write(fd) writes them
// (with write_all) to the temporary file, so a large unit never sits whole in memory.
template <class Write>
void write_file_atomically_with(const std::string& path, Write&& write, const std::string& what);

inline void write_file_atomically(const std::string& path, const std::string& text, const std::string& what) {
    write_file_atomically_with(path, [&](int fd) { write_all(fd, text, path); }, what);
}

template <class Write>
void write_file_atomically_with(const std::string& path, Write&& write, const std::string& what) {
    check_output_target(path, what);
    const std::size_t slash = path.rfind('/');
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.empty() || base == "." || base == "..") throw invalid_input(what + " '" + path + "' names a directory, not a file");
    std::string tmp = temporary_template(path, "");
    int fd = make_temporary(tmp, 0);  // registered: an interrupt removes it (temporaries.hpp)
    if (const int e = errno; fd < 0) throw_file_error(e, "cannot write " + what + " '" + path + "'");
    try {
        write(fd);
        if (::fsync(fd) != 0 && errno != EINVAL) throw resource_limit("writing '" + path + "' failed: " + errno_text(errno));
        ::fchmod(fd, 0644);
        const int closed = ::close(fd);
        fd = -1;
        if (closed != 0) throw resource_limit("writing '" + path + "' failed: " + errno_text(errno));
        check_output_target(path, what);  // it may have changed meanwhile
    } catch (...) {
        if (fd >= 0) ::close(fd);
        remove_temporary(tmp);
        throw;
    }
    if (const int e = commit_temporary(tmp, path); e != 0) throw invalid_input("cannot move the " + what + " into '" + path + "': " + errno_text(e));
}

// Opens PATH for reading and appending (created 0644 if missing). Refuses anything but
// a regular file, never follows a symlink, never blocks on a FIFO. Returns the fd.
inline int open_regular_rw(const std::string& path, const std::string& what) {
    check_output_target(path, what);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) throw invalid_input("cannot open " + what + " '" + path + "': " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw invalid_input(what + " '" + path + "' is not a regular file: refusing to write it");
    }
    ::fcntl(fd, F_SETFL, O_RDWR | O_APPEND);  // back to blocking writes
    return fd;
}

// Reads everything from fd (from its current offset), whatever it is (a regular file, a
// device such as /dev/zero, a pipe). `bytes_per_byte` (≥ 1) is the memory the caller's
// parse needs per byte of text: reading stops as soon as the bytes read so far, times
// that, are over default_max_memory() (resource_limit naming the file and the estimate),
// so an endless input costs at most limit / bytes_per_byte bytes, never the limit itself.
inline std::string read_fd(int fd, const std::string& path, const std::string& what, double bytes_per_byte = 1.0) {
    if (!(bytes_per_byte >= 1)) bytes_per_byte = 1;
    const double limit = default_max_memory();
    std::string out;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw invalid_input("cannot read " + what + " '" + path + "': " + errno_text(errno));
        }
        // Checked before the append: the text never grows past the estimate's cap.
        const double have = static_cast<double>(out.size()) + static_cast<double>(n);
        check_memory(have * bytes_per_byte, limit, "reading " + what + " '" + path + "' (at least " + format_bytes(have) + " of text)");
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

// The whole content of an input file (a regular file, a device or a pipe). A directory, a
// missing or unreadable file is invalid_input; an input whose text times `bytes_per_byte`
// (as read_fd) is over the memory limit is resource_limit: checked from its size before
// reading when it is a regular file, else as it is read, stopping there.
// Every reader of an input file goes through here (or read_fd) with its own factor.
inline std::string read_input_file(const std::string& path, const std::string& what, double bytes_per_byte = 1.0) {
    if (path.empty()) throw invalid_input(what + ": empty file name");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw invalid_input("cannot open " + what + " '" + path + "': " + errno_text(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw invalid_input(what + " '" + path + "' is a directory, expected a file");
    }
    try {
        if (S_ISREG(st.st_mode))
            check_memory(static_cast<double>(st.st_size) * std::max(1.0, bytes_per_byte), default_max_memory(),
                         "reading " + what + " '" + path + "' (" + format_bytes(static_cast<double>(st.st_size)) + " of text)");
        std::string text = read_fd(fd, path, what, bytes_per_byte);
        ::close(fd);
        return text;
    } catch (...) {
        ::close(fd);
        throw;
    }
}

}  // namespace seprank::detail
