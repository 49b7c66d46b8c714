// File names handed to the C library: checked once, quoted safely in messages.
#pragma once
#include <string>

namespace tandem::io {

// Throws ValueError naming `op` for an empty name or one with an embedded NUL byte (the C
// library would silently open the shorter name before it), as Python's open() does.
void check_path(const char* op, const std::string& path);

// `path` for an error message: printable ASCII kept, other bytes as \xNN (a NUL would cut
// the message short; control bytes would garble a terminal).
std::string quote_path(const std::string& path);

// Removes "<path>.tmp.<pid>" files that a writer killed mid-save left next to `path`, when
// process <pid> no longer exists. Files of live processes (another writer at work) stay.
// Best effort: errors are ignored. Returns how many files were removed.
int remove_stale_temporaries(const std::string& path);

}  // namespace tandem::io
