//===- TargetDesc.cpp - Target descriptor JSON ----------------------------===//

#include "kiln/Cost/TargetDesc.h"
#include "kiln/IO/TextFile.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace kiln::cost {
namespace {
using nlohmann::json;

// Reads a positive number field; the error names the field.
io::Status readPositive(const json &j, const char *key, double &out,
                        bool zeroAllowed = false) {
  auto it = j.find(key);
  if (it == j.end())
    return io::Error(std::string("target: missing field '") + key + "'");
  if (!it->is_number())
    return io::Error(std::string("target: field '") + key + "' must be a number");
  double v = it->get<double>();
  if (!(v > 0) && !(zeroAllowed && v == 0))
    return io::Error(std::string("target: field '") + key + "' must be " +
                     (zeroAllowed ? ">= 0" : "> 0") + ", got " +
                     std::to_string(v));
  out = v;
  return io::Status::success();
}

io::Status readCount(const json &j, const char *key, uint32_t &out) {
  double v = 0;
  if (auto s = readPositive(j, key, v); !s)
    return s;
  if (v != static_cast<double>(static_cast<uint32_t>(v)))
    return io::Error(std::string("target: field '") + key + "' must be a whole number");
  out = static_cast<uint32_t>(v);
  return io::Status::success();
}
} // namespace

io::Expected<TargetDesc> parseTargetDesc(const std::string &jsonText) {
  json j = json::parse(jsonText, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return io::Error("target: not a JSON object");
  static const std::set<std::string> known = {
      "name", "api", "source", "boundary_us", "boundary_no_barrier_us",
      "submit_us", "read_bandwidth_gbps", "single_workgroup_bandwidth_gbps",
      "matvec_efficiency", "compute_gflops", "subgroup_size",
      "max_workgroup_size", "max_shared_memory_bytes", "compute_units", "reduce_workgroup_size",
      "attention_value_dims", "q8_matvec_efficiency", "workgroup_barrier_us", "cache_bandwidth_gbps", "subgroup_arithmetic",
      "matvec_items", "matvec_sums", "matvec_norm", "matvec_grid_limit",
      "matvec_item_shape", "prefetch_cache_bytes", "q8_decode", "prefill_rows"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key()))
      return io::Error("target: unknown field '" + it.key() + "'");
  TargetDesc d;
  if (!j.contains("name") || !j["name"].is_string())
    return io::Error("target: missing string field 'name'");
  d.name = j["name"].get<std::string>();
  d.api = j.value("api", std::string("vulkan"));
  if (d.api != "vulkan" && d.api != "metal")
    return io::Error("target: field 'api' must be \"vulkan\" or \"metal\", got \"" + d.api + "\"");
  d.source = j.value("source", std::string());
  // A free boundary is a legitimate what-if (fusion then never pays).
  io::Status s = readPositive(j, "boundary_us", d.boundaryMicros, true);
  if (s) s = readPositive(j, "boundary_no_barrier_us", d.boundaryNoBarrierMicros, true);
  if (s) s = readPositive(j, "submit_us", d.submitMicros);
  if (s) s = readPositive(j, "read_bandwidth_gbps", d.readBandwidthGBps);
  if (s) s = readPositive(j, "single_workgroup_bandwidth_gbps", d.singleWorkgroupBandwidthGBps);
  if (s) s = readPositive(j, "matvec_efficiency", d.matvecEfficiency);
  if (s) s = readPositive(j, "compute_gflops", d.computeGFlops);
  if (s) s = readCount(j, "subgroup_size", d.subgroupSize);
  if (s) s = readCount(j, "max_workgroup_size", d.maxWorkgroupSize);
  if (s) s = readCount(j, "max_shared_memory_bytes", d.maxSharedMemoryBytes);
  if (s) s = readCount(j, "compute_units", d.computeUnits);
  // Optional (0 when absent): only a CPU implementation pays much for one.
  if (s && j.contains("workgroup_barrier_us"))
    s = readPositive(j, "workgroup_barrier_us", d.workgroupBarrierMicros, true);
  if (s && j.contains("cache_bandwidth_gbps"))
    s = readPositive(j, "cache_bandwidth_gbps", d.cacheBandwidthGBps);
  if (s && j.contains("reduce_workgroup_size")) {
    s = readCount(j, "reduce_workgroup_size", d.reduceWorkgroupSize);
    if (s && (d.reduceWorkgroupSize & (d.reduceWorkgroupSize - 1)) != 0)
      return io::Error("target: field 'reduce_workgroup_size' must be a power of two");
  }
  if (s && j.contains("q8_matvec_efficiency")) {
    s = readPositive(j, "q8_matvec_efficiency", d.q8MatvecEfficiency);
    if (s && d.q8MatvecEfficiency > 1.0)
      return io::Error("target: field 'q8_matvec_efficiency' must be <= 1");
  }
  if (s && j.contains("attention_value_dims")) {
    s = readCount(j, "attention_value_dims", d.attentionValueDims);
    if (s && (d.attentionValueDims & (d.attentionValueDims - 1)) != 0)
      return io::Error("target: field 'attention_value_dims' must be a power of two");
  }
  if (s && j.contains("subgroup_arithmetic")) {
    const json &v = j["subgroup_arithmetic"];
    if (v.is_boolean())
      d.subgroupArithmetic = v.get<bool>();
    else if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1))
      d.subgroupArithmetic = v.get<int64_t>() == 1;
    else
      return io::Error("target: field 'subgroup_arithmetic' must be true or false");
  }
  // A two-way choice spelt as one of two words: checks `v` (named `name` in
  // the error) and stores the choice in `out`.
  auto word = [&s](const char *off, const char *on) {
    return [&s, off, on](const std::string &name, const json &v, bool &out) {
      if (!v.is_string() || (v.get<std::string>() != off && v.get<std::string>() != on)) {
        s = io::Error("target: field '" + name + "' must be \"" + off + "\" or \"" + on + "\"");
        return;
      }
      out = v.get<std::string>() == on;
    };
  };
  if (s && j.contains("matvec_items"))
    word("workgroup", "subgroup")("matvec_items", j["matvec_items"], d.matvecSubgroupItems);
  if (s && j.contains("q8_decode"))
    word("convert", "exponent")("q8_decode", j["q8_decode"], d.q8DecodeByExponent);
  // A field set for both weight formats (one value) or per format ({"f16":
  // value, "q8_2f": value}; a format left out keeps its default): `read`
  // checks one value and stores it in out.f16 or out.q8.
  auto perFormat = [&](const char *field, auto &out, auto read) {
    if (!s || !j.contains(field))
      return;
    const json &v = j[field];
    if (!v.is_object()) {
      read(field, v, out.f16);
      out.q8 = out.f16;
      return;
    }
    for (auto it = v.begin(); it != v.end() && s; ++it) {
      auto *slot = it.key() == "f16" ? &out.f16 : it.key() == "q8_2f" ? &out.q8 : nullptr;
      if (!slot)
        s = io::Error(std::string("target: field '") + field + "' has unknown format '" +
                      it.key() + "' (f16 or q8_2f)");
      else
        read(field + ("." + it.key()), *it, *slot);
    }
  };
  perFormat("matvec_sums", d.matvecScalarSums, word("lanes", "scalar"));
  perFormat("matvec_norm", d.matvecNormAfterDots, word("before", "after"));
  // [rows, groups].
  perFormat("matvec_item_shape", d.matvecItemShape,
            [&s](const std::string &name, const json &v, MatvecItemShape &out) {
              if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() ||
                  !v[1].is_number_integer() || v[0].get<int64_t>() < 1 ||
                  v[0].get<int64_t>() > 16 || v[1].get<int64_t>() < 1 ||
                  v[1].get<int64_t>() > 64) {
                s = io::Error("target: field '" + name +
                              "' must be [rows, groups] with rows in [1, 16] and groups in "
                              "[1, 64]");
                return;
              }
              out = {static_cast<uint32_t>(v[0].get<int64_t>()),
                     static_cast<uint32_t>(v[1].get<int64_t>())};
            });
  if (s && j.contains("matvec_grid_limit")) {
    const json &v = j["matvec_grid_limit"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 65535)
      s = io::Error("target: field 'matvec_grid_limit' must be an integer in [0, 65535]");
    else
      d.matvecGridLimit = static_cast<uint32_t>(v.get<int64_t>());
  }
  if (s && j.contains("prefetch_cache_bytes")) {
    const json &v = j["prefetch_cache_bytes"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t(1) << 40))
      s = io::Error("target: field 'prefetch_cache_bytes' must be an integer in [0, 2^40]");
    else
      d.prefetchCacheBytes = static_cast<uint64_t>(v.get<int64_t>());
  }
  if (s && j.contains("prefill_rows")) {
    const json &v = j["prefill_rows"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() == 1 ||
        v.get<int64_t>() > 1024)
      s = io::Error("target: field 'prefill_rows' must be 0 (no @prefill) or an integer in "
                    "[2, 1024]");
    else
      d.prefillRows = static_cast<uint32_t>(v.get<int64_t>());
  }
  if (!s)
    return s.error();
  if (d.matvecEfficiency > 1.0)
    return io::Error("target: field 'matvec_efficiency' must be <= 1");
  return d;
}

io::Expected<TargetDesc> loadTargetDesc(const std::string &path) {
  // A descriptor is a few hundred bytes of JSON.
  io::Expected<std::string> text = io::readTextFile(path, 1u << 20, "target descriptor");
  if (!text)
    return text.error().withPrefix("target: ");
  auto d = parseTargetDesc(*text);
  if (!d)
    return d.error().withPrefix(path + ": ");
  return d;
}

std::string targetDescToJson(const TargetDesc &d) {
  json j = json::object();
  j["name"] = d.name;
  j["api"] = d.api;
  j["source"] = d.source;
  j["workgroup_barrier_us"] = d.workgroupBarrierMicros;
  if (d.cacheBandwidthGBps > 0)
    j["cache_bandwidth_gbps"] = d.cacheBandwidthGBps;
  j["boundary_us"] = d.boundaryMicros;
  j["boundary_no_barrier_us"] = d.boundaryNoBarrierMicros;
  j["submit_us"] = d.submitMicros;
  j["read_bandwidth_gbps"] = d.readBandwidthGBps;
  j["single_workgroup_bandwidth_gbps"] = d.singleWorkgroupBandwidthGBps;
  j["matvec_efficiency"] = d.matvecEfficiency;
  j["compute_gflops"] = d.computeGFlops;
  j["subgroup_size"] = d.subgroupSize;
  if (d.subgroupArithmetic)
    j["subgroup_arithmetic"] = true;
  j["max_workgroup_size"] = d.maxWorkgroupSize;
  if (d.reduceWorkgroupSize > 0)
    j["reduce_workgroup_size"] = d.reduceWorkgroupSize;
  if (d.q8MatvecEfficiency > 0)
    j["q8_matvec_efficiency"] = d.q8MatvecEfficiency;
  if (d.attentionValueDims > 0)
    j["attention_value_dims"] = d.attentionValueDims;
  if (d.matvecSubgroupItems)
    j["matvec_items"] = "subgroup";
  if (d.q8DecodeByExponent)
    j["q8_decode"] = "exponent";
  // A per-format switch: one word where both formats agree, else an object.
  auto perFormat = [&](const char *field, const char *off, const char *on,
                       const PerFormatSwitch &v) {
    if (v.f16 == v.q8) {
      if (v.f16)
        j[field] = on;
      return;
    }
    j[field] = {{"f16", v.f16 ? on : off}, {"q8_2f", v.q8 ? on : off}};
  };
  perFormat("matvec_sums", "lanes", "scalar", d.matvecScalarSums);
  perFormat("matvec_norm", "before", "after", d.matvecNormAfterDots);
  if (d.matvecGridLimit > 0)
    j["matvec_grid_limit"] = d.matvecGridLimit;
  if (d.prefetchCacheBytes > 0)
    j["prefetch_cache_bytes"] = d.prefetchCacheBytes;
  if (d.prefillRows > 0)
    j["prefill_rows"] = d.prefillRows;
  // An item shape: one pair where both formats agree, else an object of the
  // formats that set one.
  auto shapeJson = [](const MatvecItemShape &v) { return json::array({v.rows, v.groups}); };
  const PerFormatItemShape &shapes = d.matvecItemShape;
  bool same = shapes.f16.rows == shapes.q8.rows && shapes.f16.groups == shapes.q8.groups;
  if (same && shapes.f16.rows > 0) {
    j["matvec_item_shape"] = shapeJson(shapes.f16);
  } else if (!same) {
    json perFormat = json::object();
    if (shapes.f16.rows > 0)
      perFormat["f16"] = shapeJson(shapes.f16);
    if (shapes.q8.rows > 0)
      perFormat["q8_2f"] = shapeJson(shapes.q8);
    j["matvec_item_shape"] = perFormat;
  }
  j["max_shared_memory_bytes"] = d.maxSharedMemoryBytes;
  j["compute_units"] = d.computeUnits;
  return j.dump(2) + "\n";
}

io::Status saveTargetDesc(const TargetDesc &desc, const std::string &path) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return io::Error("target: cannot write '" + tmp + "'");
    out << targetDescToJson(desc);
    if (!out.flush())
      return io::Error("target: write to '" + tmp + "' failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return io::Error("target: cannot rename '" + tmp + "' to '" + path + "'");
  }
  return io::Status::success();
}

} // namespace kiln::cost
