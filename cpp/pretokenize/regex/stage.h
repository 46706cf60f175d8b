// The pre-tokenizer stage of a Split whose regex the compiler serves (StageSpec::Kind::Regex).
#pragma once
#include <memory>

#include "pretokenize/pipeline.h"

namespace tagpipe::pretok {

// Throws std::invalid_argument when spec.program is not a valid program.
std::unique_ptr<Stage> make_regex_stage(const StageSpec& spec);

}  // namespace tagpipe::pretok
