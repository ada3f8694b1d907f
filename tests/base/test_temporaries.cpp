// The registry of temporaries and children (src/base/temporaries.hpp) and what the output
// files build on it (src/base/file_io.hpp): a temporary is registered from its creation
// to its rename or removal, the interrupt's clean-up removes every one and ends every
// registered child, temporary names fit in 255 bytes, and a signal taken by
// install_interrupt_cleanup (cancel.hpp) removes the temporaries before the process ends
// by it.
#include "base/file_io.hpp"
#include "base/temporaries.hpp"

#include "seprank/cancel.hpp"
#include "support.hpp"

#include <csignal>
#include <doctest/doctest.h>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace seprank;
namespace fs = std::filesystem;

namespace {

// A fresh folder for one test, removed at its end.
struct Folder {
    fs::path path;
    explicit Folder(const std::string& name) {
        path = fs::temp_directory_path() / ("seprank_tmp_" + name + "_" + std::to_string(seprank_test::seed()) + "_" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Folder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    // The names in the folder holding ".tmp." (the temporaries).
    std::vector<std::string> temporaries() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(path))
            if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().filename().string());
        return out;
    }
};

bool valid_utf8_start(const std::string& s) { return s.empty() || (static_cast<unsigned char>(s[0]) & 0xC0) != 0x80; }

}  // namespace

TEST_CASE("temporaries: made registered, renamed or removed unregistered") {
    Folder dir("registry");
    const std::size_t before = detail::registered_temporaries();
    std::string a = (dir.path / ".a.tmp.XXXXXX").string(), b = (dir.path / ".b.tmp.XXXXXX.gp").string();
    const int fa = detail::make_temporary(a, 0), fb = detail::make_temporary(b, 3);
    REQUIRE(fa >= 0);
    REQUIRE(fb >= 0);
    ::close(fa);
    ::close(fb);
    CHECK(a.find("XXXXXX") == std::string::npos);
    CHECK(b.size() > 3);
    CHECK(b.compare(b.size() - 3, 3, ".gp") == 0);  // the suffix stays
    CHECK(fs::exists(a));
    CHECK(detail::registered_temporaries() == before + 2);
    CHECK(detail::commit_temporary(a, (dir.path / "a.txt").string()) == 0);
    CHECK(fs::exists(dir.path / "a.txt"));
    CHECK_FALSE(fs::exists(a));
    detail::remove_temporary(b);
    CHECK_FALSE(fs::exists(b));
    CHECK(detail::registered_temporaries() == before);
    // a rename that fails removes the temporary and says why
    std::string c = (dir.path / ".c.tmp.XXXXXX").string();
    const int fc = detail::make_temporary(c, 0);
    REQUIRE(fc >= 0);
    ::close(fc);
    CHECK(detail::commit_temporary(c, (dir.path / "no_such_folder" / "c.txt").string()) == ENOENT);
    CHECK_FALSE(fs::exists(c));
    CHECK(detail::registered_temporaries() == before);
    // a template mkostemps refuses registers nothing
    std::string bad = (dir.path / "no_such_folder" / ".d.tmp.XXXXXX").string();
    CHECK(detail::make_temporary(bad, 0) < 0);
    CHECK(detail::registered_temporaries() == before);
}

TEST_CASE("temporaries: an output's temporary is registered while written, and the clean-up removes it") {
    Folder dir("atomic");
    const std::string path = (dir.path / "out.txt").string();
    const std::size_t before = detail::registered_temporaries();
    // a write interrupted mid-way: the clean-up (what an interrupt runs) removes the temporary
    std::size_t seen_registered = 0, seen_on_disk = 0;
    CHECK(seprank_test::throws_with<invalid_input>(
        [&] {
            detail::write_file_atomically_with(
                path,
                [&](int fd) {
                    detail::write_all(fd, std::string("half"), path);
                    seen_registered = detail::registered_temporaries() - before;
                    seen_on_disk = dir.temporaries().size();
                    (void)detail::clean_up_registered();  // the lock goes at once here; an interrupt keeps it
                },
                "test file");
        },
        "cannot move the test file"));
    CHECK(seen_registered == 1);
    CHECK(seen_on_disk == 1);
    CHECK(dir.temporaries().empty());
    CHECK_FALSE(fs::exists(path));
    CHECK(detail::registered_temporaries() == before);
    // a write that fails (a full disk) leaves nothing and registers nothing
    CHECK(seprank_test::throws_with<resource_limit>(
        [&] { detail::write_file_atomically_with(path, [&](int) { throw resource_limit("writing failed: No space left on device"); }, "test file"); },
        "No space left"));
    CHECK(dir.temporaries().empty());
    CHECK_FALSE(fs::exists(path));
    CHECK(detail::registered_temporaries() == before);
    // and one that succeeds leaves the file alone
    detail::write_file_atomically(path, "whole\n", "test file");
    CHECK(fs::file_size(path) == 6);
    CHECK(dir.temporaries().empty());
    CHECK(detail::registered_temporaries() == before);
}

TEST_CASE("temporaries: the clean-up ends a registered child before it removes anything") {
    std::vector<char> prog{'s', 'l', 'e', 'e', 'p', '\0'}, arg{'3', '0', '\0'};
    char* argv[] = {prog.data(), arg.data(), nullptr};
    const pid_t pid = detail::spawn_registered([&] {
        pid_t child = 0;
        return ::posix_spawnp(&child, "sleep", nullptr, nullptr, argv, environ) == 0 ? child : pid_t(-1);
    });
    REQUIRE(pid > 0);
    (void)detail::clean_up_registered();
    const int status = detail::wait_registered(pid);  // reaped here: the clean-up only waits
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    // a spawn that starts nothing registers nothing
    CHECK(detail::spawn_registered([] { return pid_t(-1); }) == -1);
}

TEST_CASE("temporaries: a temporary's name fits in 255 bytes, whatever the output's name") {
    Rng rng = seprank_test::rng_for("temporary-names");
    Folder dir("names");
    const std::string pieces[] = {"a", "Z", "0", "_", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x93\x88"};  // 1 to 4 bytes each
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const std::size_t want = 1 + rng.below(255);
        std::string base;
        while (true) {
            const std::string& p = pieces[rng.below(7)];
            if (base.size() + p.size() > want) break;
            base += p;
        }
        if (base.empty()) base = "x";
        const std::string suffix = rng.below(2) ? std::string() : std::string(rng.below(2) ? ".svg" : ".gp");
        const std::string t = detail::temporary_template((dir.path / base).string(), suffix);
        const std::string name = fs::path(t).filename().string();
        INFO("seed " << seprank_test::seed() << " base of " << base.size() << " bytes, suffix '" << suffix << "'");
        CHECK(name.size() <= 255);
        CHECK(name.compare(name.size() - suffix.size() - 11, 11, ".tmp.XXXXXX") == 0);
        const std::string kept = name.substr(1, name.size() - 12 - suffix.size());
        CHECK(base.compare(0, kept.size(), kept) == 0);  // a prefix of the name ...
        CHECK((kept.size() == base.size() || kept.size() + 12 + suffix.size() > 251));  // ... cut only where it had to be
        CHECK(valid_utf8_start(base.substr(kept.size())));  // never inside a character
        if (it % 20 == 0) {  // the file system takes it, and the output behind it
            std::string made = t;
            const int fd = detail::make_temporary(made, static_cast<int>(suffix.size()));
            REQUIRE_MESSAGE(fd >= 0, "errno " << errno);
            ::close(fd);
            detail::remove_temporary(made);
            detail::write_file_atomically((dir.path / base).string(), "x\n", "test file");
            CHECK(fs::exists(dir.path / base));
            CHECK(dir.temporaries().empty());
            fs::remove(dir.path / base);
        }
    }
    CHECK(detail::temporary_template("out.svg", ".gp") == ".out.svg.tmp.XXXXXX.gp");
    CHECK(detail::temporary_template("d/out.svg", "") == "d/.out.svg.tmp.XXXXXX");
}

TEST_CASE("temporaries: SIGINT, SIGTERM and SIGHUP remove the temporaries and end the process by the signal") {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        Folder dir("signal" + std::to_string(sig));
        int ready[2];
        REQUIRE(::pipe(ready) == 0);
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {  // the child: a program that installed the clean-up, mid-way through a write
            ::close(ready[0]);
            // As a program in the foreground: a test run in the background (nohup, `&`)
            // inherits SIGINT and SIGHUP ignored, and the clean-up leaves an ignored signal so.
            for (const int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, SIG_DFL);
            install_interrupt_cleanup();
            std::string t = (dir.path / ".out.tmp.XXXXXX").string();
            const int fd = detail::make_temporary(t, 0);
            const char ok = fd >= 0 ? '1' : '0';
            (void)!::write(ready[1], &ok, 1);
            for (;;) ::pause();
        }
        ::close(ready[1]);
        char ok = 0;
        REQUIRE(::read(ready[0], &ok, 1) == 1);
        ::close(ready[0]);
        CHECK(ok == '1');
        CHECK(dir.temporaries().size() == 1);
        ::kill(pid, sig);
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK_MESSAGE(WIFSIGNALED(status), "signal " << sig);
        CHECK(WTERMSIG(status) == sig);
        CHECK(dir.temporaries().empty());
    }
}
