// The kernel registry: every instruction set's Kernel this build has (cpp/arch/<isa>.cpp),
// which of them this CPU can run, and the active one (chosen once from CPU features, or
// forced by name).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernels.h"

namespace tagpipe::kernels {

// Kernels compiled into this build, best last.
const std::vector<Kernel>& compiled();
// Compiled and runnable on this CPU, best last.
std::vector<const Kernel*> available();
// nullptr if no compiled kernel has this name.
const Kernel* find(std::string_view name);

// The active kernel: the best available one unless set_active() chose another.
const Kernel& active();
// Throws std::invalid_argument naming the problem (unknown name, or not runnable here).
void set_active(std::string_view name);

}  // namespace tagpipe::kernels
