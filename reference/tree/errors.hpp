// Error types of the reference layer. A ModelError names the offending field with a path such as
// "bodies[3].inertial.mass", and the file the description was read from when it has one
// (ModelDesc::file; build_model adds it). what() is "FIELD: MESSAGE", without the file.
#pragma once

#include <stdexcept>
#include <string>

namespace rbd {

class ModelError : public std::runtime_error {
 public:
  ModelError(std::string field, const std::string& what, std::string file = "")
      : std::runtime_error(field + ": " + what), field_(std::move(field)), message_(what), file_(std::move(file)) {}
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }
  const std::string& file() const { return file_; }

 private:
  std::string field_, message_, file_;
};

}  // namespace rbd
