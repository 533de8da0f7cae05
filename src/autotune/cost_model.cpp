// CostModel: XGBoost through its C API, with every handle owned by RAII and every error
// turned into an InternalError carrying XGBoost's message.
#include "autotune/cost_model.h"

#include <xgboost/c_api.h>

#include <limits>
#include <numeric>
#include <sstream>
#include <string>

#include "support/error.h"

namespace tessel::autotune {
namespace {

/// XGBoost's last error message. XGBoost appends a stack trace of its own internals; only
/// the text before it explains.
std::string last_error() {
  std::string message = XGBGetLastError();
  message = message.substr(0, message.find("Stack trace:"));
  message.erase(message.find_last_not_of(" \n") + 1);
  return message;
}

/// Fails with XGBoost's last error when a C API call returned non-zero.
void check(int status, const char* call) {
  if (status != 0) TESSEL_INTERNAL_ERROR("xgboost: ", call, " failed: ", last_error());
}

struct MatrixDeleter {
  void operator()(void* handle) const { XGDMatrixFree(handle); }
};
struct BoosterDeleter {
  void operator()(void* handle) const { XGBoosterFree(handle); }
};
using Matrix = std::unique_ptr<void, MatrixDeleter>;
using Booster = std::unique_ptr<void, BoosterDeleter>;

/// A dense matrix of `rows`; every row must have `width` columns.
Matrix make_matrix(const std::vector<std::vector<float>>& rows, size_t width, int nthread) {
  std::vector<float> data;
  data.reserve(rows.size() * width);
  for (const std::vector<float>& row : rows) {
    TESSEL_ICHECK(row.size() == width, "cost model: a feature row has ", row.size(),
                  " features, expected ", width);
    data.insert(data.end(), row.begin(), row.end());
  }
  // NaN marks missing values, so that 0 stays an ordinary feature value.
  DMatrixHandle handle = nullptr;
  check(XGDMatrixCreateFromMat_omp(data.data(), rows.size(), width,
                                   std::numeric_limits<float>::quiet_NaN(), &handle, nthread),
        "XGDMatrixCreateFromMat_omp");
  return Matrix(handle);
}

std::string number(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

}  // namespace

struct CostModel::Impl {
  CostModelOptions options;
  Booster booster;
  size_t num_features = 0;

  void set_params(BoosterHandle handle) const {
    const std::pair<const char*, std::string> params[] = {
        {"objective", options.objective},
        {"max_depth", std::to_string(options.max_depth)},
        {"eta", number(options.eta)},
        {"subsample", number(options.subsample)},
        {"nthread", std::to_string(options.nthread)},
        {"seed", std::to_string(options.seed)},
        {"tree_method", "hist"},
        {"verbosity", "0"},
    };
    for (const auto& [name, value] : params)
      check(XGBoosterSetParam(handle, name, value.c_str()), "XGBoosterSetParam");
  }
};

CostModel::CostModel(CostModelOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

void CostModel::fit(const std::vector<std::vector<float>>& features,
                    const std::vector<float>& labels, const std::vector<unsigned>& group_sizes) {
  TESSEL_ICHECK(!features.empty(), "cost model: no samples to fit");
  TESSEL_ICHECK(labels.size() == features.size(), "cost model: ", labels.size(), " labels for ",
                features.size(), " samples");
  uint64_t grouped = std::accumulate(group_sizes.begin(), group_sizes.end(), uint64_t{0});
  TESSEL_ICHECK(grouped == features.size(), "cost model: groups of ", grouped, " samples for ",
                features.size(), " samples");
  size_t width = features.front().size();
  TESSEL_ICHECK(width > 0, "cost model: samples without features");

  Matrix train = make_matrix(features, width, impl_->options.nthread);
  check(XGDMatrixSetFloatInfo(train.get(), "label", labels.data(), labels.size()),
        "XGDMatrixSetFloatInfo(label)");
  check(XGDMatrixSetUIntInfo(train.get(), "group", group_sizes.data(), group_sizes.size()),
        "XGDMatrixSetUIntInfo(group)");

  DMatrixHandle matrices[] = {train.get()};
  BoosterHandle handle = nullptr;
  check(XGBoosterCreate(matrices, 1, &handle), "XGBoosterCreate");
  Booster booster(handle);
  impl_->set_params(handle);
  for (int round = 0; round < impl_->options.rounds; ++round)
    check(XGBoosterUpdateOneIter(handle, round, train.get()), "XGBoosterUpdateOneIter");
  // Only a completely trained booster replaces the previous model.
  impl_->booster = std::move(booster);
  impl_->num_features = width;
}

std::vector<float> CostModel::predict(const std::vector<std::vector<float>>& features) const {
  TESSEL_ICHECK(trained(), "cost model: predict before fit");
  if (features.empty()) return {};
  Matrix matrix = make_matrix(features, impl_->num_features, impl_->options.nthread);
  bst_ulong length = 0;
  const float* scores = nullptr;
  check(XGBoosterPredict(impl_->booster.get(), matrix.get(), /*option_mask=*/0,
                         /*ntree_limit=*/0, /*training=*/0, &length, &scores),
        "XGBoosterPredict");
  TESSEL_ICHECK(length == features.size(), "cost model: ", length, " predictions for ",
                features.size(), " rows");
  // The scores live in the booster's buffer until its next call: copy them now.
  return std::vector<float>(scores, scores + length);
}

bool CostModel::trained() const {
  return impl_ && impl_->booster != nullptr;
}

size_t CostModel::num_features() const {
  return trained() ? impl_->num_features : 0;
}

std::string CostModel::save() const {
  TESSEL_ICHECK(trained(), "cost model: save before fit");
  bst_ulong length = 0;
  const char* bytes = nullptr;
  check(XGBoosterSaveModelToBuffer(impl_->booster.get(), R"({"format": "json"})", &length, &bytes),
        "XGBoosterSaveModelToBuffer");
  return std::string(bytes, length);
}

CostModel CostModel::load(const std::string& json, const std::string& origin,
                          CostModelOptions options) {
  CostModel model(std::move(options));
  BoosterHandle handle = nullptr;
  check(XGBoosterCreate(nullptr, 0, &handle), "XGBoosterCreate");
  Booster booster(handle);
  bst_ulong features = 0;
  if (XGBoosterLoadModelFromBuffer(handle, json.data(), json.size()) != 0 ||
      XGBoosterGetNumFeature(handle, &features) != 0)
    TESSEL_USER_ERROR("cost model ", origin, " cannot be read as an XGBoost model: ", last_error());
  if (features == 0) TESSEL_USER_ERROR("cost model ", origin, " takes no features");
  // The learning parameters came with the model; only how it runs here is set.
  check(XGBoosterSetParam(handle, "nthread", std::to_string(model.impl_->options.nthread).c_str()),
        "XGBoosterSetParam");
  check(XGBoosterSetParam(handle, "verbosity", "0"), "XGBoosterSetParam");
  model.impl_->booster = std::move(booster);
  model.impl_->num_features = features;
  return model;
}

}  // namespace tessel::autotune
