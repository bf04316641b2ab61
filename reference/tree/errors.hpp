// Error types of the reference layer. A ModelError names the offending field with a path such as
// "bodies[3].inertial.mass" (the reader that built the description adds the file name).
#pragma once

#include <stdexcept>
#include <string>

namespace rbd {

class ModelError : public std::runtime_error {
 public:
  ModelError(std::string field, const std::string& what)
      : std::runtime_error(field + ": " + what), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

}  // namespace rbd
