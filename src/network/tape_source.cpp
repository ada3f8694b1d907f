// seprank — a recorded tape as source code (tape_source.hpp); the text itself is
// tape_source_impl.hpp's, shared with the CUDA plugin.
#include "tape_source.hpp"

#include "seprank/error.hpp"
#include "tape_impl.hpp"
#include "tape_source_impl.hpp"

#include <cctype>
#include <string>
#include <vector>

namespace seprank::tape_detail {

namespace {

// The tape's instructions with their constants in `form` (checked against the prime).
std::vector<Tape::Op> formed_ops(const Tape& tape, SourceForm form) {
    const std::uint64_t p = tape.modulus();
    const bool fits = form == SourceForm::two ? p == 2 : form == SourceForm::mont32 ? tape::narrow_prime(p) : p % 2 == 1;
    if (!fits) throw invalid_input("program form does not fit the tape's prime " + std::to_string(p));
    std::vector<Tape::Op> ops(tape.ops().begin(), tape.ops().end());
    if (form == SourceForm::mont32) tape::narrow_program(ops.data(), ops.size(), tape::make_mont32(p));
    return ops;
}

std::string checked(std::string text) {
    if (text.empty()) throw internal_error("tape: an opcode without a source form");
    return text;
}

bool c_identifier(const std::string& name) {
    bool ident = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    return ident;
}

}  // namespace

SourceForm gpu_form(std::uint64_t p) { return p == 2 ? SourceForm::two : tape::narrow_prime(p) ? SourceForm::mont32 : SourceForm::mont; }

std::string program_source(const Tape& tape, const std::string& name, SourceForm form, const std::string& weights) {
    if (!c_identifier(name)) throw invalid_input("program name '" + name + "' is not a C identifier");
    if (!c_identifier(weights)) throw invalid_input("weights array name '" + weights + "' is not a C identifier");
    if (weights == name) throw invalid_input("weights array name '" + weights + "' is the program's name");
    const std::vector<Tape::Op> ops = formed_ops(tape, form);
    return checked(tape::program_text(ops.data(), ops.size(), tape.slots(), tape.output_slot(), name, weights));
}

std::vector<std::uint64_t> program_weights(const Tape& tape, SourceForm form) {
    const std::vector<Tape::Op> ops = formed_ops(tape, form);
    return tape::program_weights(ops.data(), ops.size());
}

std::string kernel_source(const Tape& tape, SourceForm form, unsigned kernels) {
    const std::vector<Tape::Op> ops = formed_ops(tape, form);
    return checked(tape::kernel_text(ops.data(), ops.size(), tape.slots(), tape.output_slot(), form, kernels));
}

}  // namespace seprank::tape_detail
