// InputError: the error for bad input, naming the file and the field; the command line turns it
// into exit status 2.
#pragma once

#include <stdexcept>
#include <string>

namespace rbd {

// Bad input: names the file, the field (a JSON-pointer-like path or an XML location) and what
// was expected. what() is "FILE: FIELD: EXPECTED".
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, const std::string& field, const std::string& expected)
      : std::runtime_error(file + ": " + (field.empty() ? "" : field + ": ") + expected),
        file_(file), field_(field) {}
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_, field_;
};

}  // namespace rbd
