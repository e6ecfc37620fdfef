// Trace reader: walks a trace v1 document (traces/README.md is the contract) into sim/frame.h's
// Trace, validating everything sim/ relies on so sim/ never has to re-check its input.
#include "frontend/trace_parser.h"

namespace tbdr::trace_parsing {

// ---- top level ------------------------------------------------------------------------------------

Trace TraceParser::parse(const nlohmann::json& document) {
  const JsonCursor root(document, m_file);
  if (!document.is_object()) root.fail("expected a trace object, got " + JsonCursor::describe(document));
  // Format and version first: a newer trace's unknown keys should be reported as a version problem.
  const JsonCursor format = root.require("format");
  if (format.as_string() != "tbdrsim-trace")
    format.fail("expected \"tbdrsim-trace\", got " + JsonCursor::describe(format.json()));
  const JsonCursor version = root.require("version");
  if (!version.json().is_number_integer() || version.json().get<int64_t>() != 1)
    version.fail("unsupported trace version " + JsonCursor::describe(version.json()) + "; this reader reads version 1");
  root.expect_object({"format", "version", "name", "warnings", "images", "textures", "meshes", "buffers", "frames"});

  m_trace.path = m_file;
  m_trace.name = fs::path(m_file).stem().string();
  if (auto name = root.get("name")) m_trace.name = name->as_name();
  if (auto warnings = root.get("warnings"))
    for (const auto& w : warnings->elements()) m_trace.warnings.push_back(w.as_string());

  for (const auto& image : root.require("images").elements()) parse_image(image);
  if (auto textures = root.get("textures"))
    for (const auto& texture : textures->elements()) parse_texture(texture);
  if (auto meshes = root.get("meshes"))
    for (const auto& mesh : meshes->elements()) parse_mesh(mesh);
  if (auto buffers = root.get("buffers"))
    for (const auto& buffer : buffers->elements()) parse_buffer(buffer);
  const auto frames = root.require("frames").elements(1);
  for (size_t i = 0; i < frames.size(); ++i) m_trace.frames.push_back(parse_frame(frames[i], i));
  return std::move(m_trace);
}

// ---- images ---------------------------------------------------------------------------------------

void TraceParser::parse_image(const JsonCursor& c) {
  c.expect_object({"name", "format", "width", "height", "samples", "mip_levels", "array_layers", "usage",
                   "transient", "image_tiling", "alias", "mutable_format", "swapchain", "contents"});
  ImageDesc image;
  image.name = c.require("name").as_name();
  m_images.add(image.name, c.child("name"));

  const JsonCursor format = c.require("format");
  auto parsed = parse_format(format.as_string());
  if (!parsed) format.fail(JsonCursor::unknown_value_message(format.as_string(), format_names()));
  image.format = *parsed;

  image.width = c.require("width").as_uint(1, kMaxImageSize);
  image.height = c.require("height").as_uint(1, kMaxImageSize);
  if (auto samples = c.get("samples")) {
    const int64_t s = samples->json().is_number_unsigned() ? samples->as_int(0, INT64_MAX) : -1;
    if (s != 1 && s != 2 && s != 4 && s != 8)
      samples->fail("expected 1, 2, 4 or 8, got " + JsonCursor::describe(samples->json()));
    image.samples = static_cast<uint32_t>(s);
    if (uint64_t(image.width) * image.height * image.samples > kMaxImageSamples)
      samples->fail(size_text(image.width, image.height) + " x " + std::to_string(s) + " samples is over the limit of " +
                    std::to_string(kMaxImageSamples) + " samples per image (traces/README.md \"Limits\")");
  }
  if (uint64_t(image.width) * image.height > kMaxImageSamples)
    c.child("width").fail(size_text(image.width, image.height) + " is over the limit of " +
                          std::to_string(kMaxImageSamples) + " samples per image (traces/README.md \"Limits\")");
  // 1 + floor(log2(max(width, height))) == bit_width(max(width, height)).
  const uint32_t max_mips = static_cast<uint32_t>(std::bit_width(std::max(image.width, image.height)));
  image.mip_levels = read_uint(c, "mip_levels", 1, 1, max_mips);
  if (image.samples > 1 && image.mip_levels > 1)
    c.child("mip_levels").fail("a multisampled image has one mip level (Vulkan), got " +
                               std::to_string(image.mip_levels));
  image.array_layers = read_uint(c, "array_layers", 1, 1, kMaxArrayLayers);
  const uint64_t samples = uint64_t(image.width) * image.height * image.samples * image.array_layers;
  if (samples > kMaxImageSamples)
    c.child("array_layers")
        .fail(size_text(image.width, image.height) + " x " + std::to_string(image.samples) + " samples x " +
              std::to_string(image.array_layers) + " layers is over the limit of " + std::to_string(kMaxImageSamples) +
              " samples per image (traces/README.md \"Limits\")");
  m_image_samples += samples;
  if (m_image_samples > kMaxTraceSamples)
    c.fail("the images up to this one hold " + std::to_string(m_image_samples) + " samples, over the limit of " +
           std::to_string(kMaxTraceSamples) + " per trace (traces/README.md \"Limits\")");
  image.usage = read_bits<ImageUsage>(c, "usage", kUsages);
  image.transient = read_bool(c, "transient", false);
  image.tiling = read_enum<ImageTiling>(c, ImageTiling::optimal, kTilings, "image_tiling");
  image.alias = read_bool(c, "alias", false);
  image.mutable_format = read_bool(c, "mutable_format", false);
  image.swapchain = read_uint(c, "swapchain", 0, 2, kMaxSwapchainImages);

  if (auto contents = c.get("contents")) {
    const auto list = contents->elements();
    if (image.transient && !list.empty())
      contents->fail("a transient image is lazily allocated and cannot have initial contents");
    for (const auto& entry : list) parse_image_contents(entry, image);
  }
  m_trace.images.push_back(std::move(image));
}

uint32_t TraceParser::parse_mip(const JsonCursor& c, const ImageDesc& image) const {
  auto mip = c.get("mip");
  if (!mip) return 0;
  const uint32_t value = mip->as_uint();
  if (value >= image.mip_levels)
    mip->fail("mip " + std::to_string(value) + " is out of range: image " + in_quotes(image.name) + " has " +
              std::to_string(image.mip_levels) + " mip level(s)");
  return value;
}

uint32_t TraceParser::parse_layer(const JsonCursor& c, const ImageDesc& image) const {
  auto layer = c.get("layer");
  if (!layer) return 0;
  const uint32_t value = layer->as_uint();
  if (value >= image.array_layers)
    layer->fail("layer " + std::to_string(value) + " is out of range: image " + in_quotes(image.name) + " has " +
                std::to_string(image.array_layers) + " array layer(s)");
  return value;
}

void TraceParser::parse_image_contents(const JsonCursor& c, ImageDesc& image) {
  c.expect_object({"file", "mip", "layer", "captured"});
  ImageContents contents;
  contents.mip = parse_mip(c, image);
  contents.layer = parse_layer(c, image);
  for (const auto& other : image.contents)
    if (other.mip == contents.mip && other.layer == contents.layer)
      c.fail("mip " + std::to_string(contents.mip) + " layer " + std::to_string(contents.layer) +
             " of image " + in_quotes(image.name) + " already has contents");
  decode_contents(c, image, contents);
  image.contents.push_back(std::move(contents));
}

// `file` and `captured` of a contents object, decoded at the size of `contents.mip`.
void TraceParser::decode_contents(const JsonCursor& c, const ImageDesc& image, ImageContents& contents) {
  const JsonCursor file = c.require("file");
  const fs::path resolved = m_files.resolve(file);
  contents.source = file.as_string();
  contents.captured = read_bool(c, "captured", false);
  // Depth formats take a grey image: depth = grey / max, stencil 0 (README, IMAGE `contents`).
  DecodedImage decoded = m_files.decode_image(resolved, file, is_depth_stencil(image.format));
  const uint32_t w = mip_extent(image.width, contents.mip), h = mip_extent(image.height, contents.mip);
  if (decoded.width != w || decoded.height != h)
    file.fail("image file " + in_quotes(contents.source) + " is " + size_text(decoded.width, decoded.height) +
              "; mip " + std::to_string(contents.mip) + " of image " + in_quotes(image.name) + " is " +
              size_text(w, h));
  contents.pixels = std::move(decoded.pixels);
}

void TraceParser::parse_texture(const JsonCursor& c) {
  c.expect_object({"name", "file", "format", "mip"});
  Texture texture;
  texture.name = c.require("name").as_name();
  m_textures.add(texture.name, c.child("name"));
  const JsonCursor file = c.require("file");
  const fs::path resolved = m_files.resolve(file);
  texture.source = file.as_string();
  if (auto format = c.get("format")) {
    auto parsed = parse_texture_format(format->as_string());
    if (!parsed) format->fail(JsonCursor::unknown_value_message(format->as_string(), texture_format_names()));
    texture.format = *parsed;
  }
  texture.mip_mode = read_enum<MipMode>(c, MipMode::none, kMipModes, "mip");
  DecodedImage decoded = m_files.decode_image(resolved, file, false);
  if (decoded.width > kMaxImageSize || decoded.height > kMaxImageSize)
    file.fail("texture is " + size_text(decoded.width, decoded.height) + "; at most " +
              size_text(kMaxImageSize, kMaxImageSize));
  texture.width = decoded.width;
  texture.height = decoded.height;
  texture.texels = std::move(decoded.pixels);
  if (texture.mip_mode == MipMode::generate) generate_mip_chain(texture);  // "mip chains generated at load"
  m_trace.textures.push_back(std::move(texture));
}

// ---- meshes ---------------------------------------------------------------------------------------

// Checks a sidecar object and returns the file's bytes; `offset`/`count` receive the range.
const std::vector<uint8_t>& TraceParser::sidecar_range(const JsonCursor& c, size_t element_bytes, size_t& offset,
                                                       size_t& count) {
  c.expect_object({"file", "offset", "count"});
  const JsonCursor file = c.require("file");
  const fs::path resolved = m_files.resolve(file);
  offset = static_cast<size_t>(c.get("offset") ? c.child("offset").as_int(0, INT64_MAX) : 0);
  count = static_cast<size_t>(c.require("count").as_int(0, INT64_MAX));
  const std::vector<uint8_t>& bytes = m_files.bytes(resolved, file);
  // Compare without overflow: offset + count * element_bytes <= size.
  const bool inside = offset <= bytes.size() && count <= (bytes.size() - offset) / element_bytes;
  if (!inside)
    c.fail("sidecar range of " + std::to_string(count) + " x " + std::to_string(element_bytes) +
           " bytes at offset " + std::to_string(offset) + " lies beyond the end of " + in_quotes(file.as_string()) +
           " (" + std::to_string(bytes.size()) + " bytes)");
  return bytes;
}

std::vector<float> TraceParser::read_float_stream(const JsonCursor& c) {
  std::vector<float> out;
  if (c.json().is_object()) {
    size_t offset = 0, count = 0;
    const auto& bytes = sidecar_range(c, 4, offset, count);
    out.resize(count);
    // Little-endian float32 (README, SIDECAR); this reader targets little-endian hosts.
    static_assert(std::endian::native == std::endian::little);
    if (count) std::memcpy(out.data(), bytes.data() + offset, count * 4);
    return out;
  }
  if (!c.json().is_array())
    c.fail("expected an array of numbers or a sidecar {\"file\", \"offset\", \"count\"}, got " +
           JsonCursor::describe(c.json()));
  const size_t n = c.json().size();
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const nlohmann::json& v = c.json()[i];
    out[i] = v.is_number() ? static_cast<float>(v.get<double>()) : c.at(i).as_float();
  }
  return out;
}

std::vector<uint32_t> TraceParser::read_index_stream(const JsonCursor& c, uint32_t index_bits) {
  const uint32_t max_index = index_bits == 16 ? 0xffffu : 0xffffffffu;
  std::vector<uint32_t> out;
  if (c.json().is_object()) {
    size_t offset = 0, count = 0;
    const size_t element_bytes = index_bits / 8;
    const auto& bytes = sidecar_range(c, element_bytes, offset, count);
    out.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const uint8_t* p = bytes.data() + offset + i * element_bytes;
      out[i] = index_bits == 16 ? uint32_t(p[0]) | uint32_t(p[1]) << 8
                                : uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    }
    return out;
  }
  if (!c.json().is_array())
    c.fail("expected an array of indices or a sidecar {\"file\", \"offset\", \"count\"}, got " +
           JsonCursor::describe(c.json()));
  const size_t n = c.json().size();
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    // Checked on the raw value; a cursor (and its pointer string) is built only to report.
    const nlohmann::json& v = c.json()[i];
    // Non-negative integers parse as unsigned; anything else gets as_int's type/range message.
    if (!v.is_number_unsigned()) c.at(i).as_int(0, max_index);
    const uint64_t value = v.get<uint64_t>();
    if (value > max_index)
      c.at(i).fail("index " + std::to_string(value) + " does not fit in index_bits " + std::to_string(index_bits));
    out[i] = static_cast<uint32_t>(value);
  }
  return out;
}

void TraceParser::parse_mesh(const JsonCursor& c) {
  c.expect_object({"name", "topology", "positions", "position_components", "colors", "uvs", "normals", "indices",
                   "index_bits", "interleaved"});
  Mesh mesh;
  mesh.name = c.require("name").as_name();
  m_meshes.add(mesh.name, c.child("name"));
  mesh.topology = read_enum<Topology>(c, Topology::triangle_list, kTopologies, "topology");
  if (auto components = c.get("position_components")) {
    mesh.position_components = components->as_uint(3, 4);
  }
  if (auto bits = c.get("index_bits")) {
    if (!bits->json().is_number_unsigned() || (bits->json() != 16 && bits->json() != 32))
      bits->fail("expected 16 or 32, got " + JsonCursor::describe(bits->json()));
    mesh.index_bits = bits->as_uint();
  }
  mesh.interleaved = read_bool(c, "interleaved", false);

  // Positions: 3 or 4 numbers per vertex, all finite (a NaN vertex would poison binning bounds).
  const JsonCursor positions_cursor = c.require("positions");
  const std::vector<float> positions = read_float_stream(positions_cursor);
  const uint32_t k = mesh.position_components;
  if (positions.size() % k != 0)
    positions_cursor.fail(std::to_string(positions.size()) + " numbers is not a whole number of vertices (" +
                          std::to_string(k) + " per vertex, position_components)");
  const size_t vertex_count = positions.size() / k;
  if (vertex_count > std::numeric_limits<uint32_t>::max()) positions_cursor.fail("too many vertices");
  mesh.positions.resize(vertex_count);
  for (size_t v = 0; v < vertex_count; ++v) {
    const float* p = positions.data() + v * k;
    for (uint32_t i = 0; i < k; ++i) {
      if (!std::isfinite(p[i])) {
        std::ostringstream text;
        text << "vertex " << v << " has a non-finite position (";
        for (uint32_t j = 0; j < k; ++j) text << (j ? ", " : "") << p[j];
        text << ")";
        positions_cursor.fail(text.str());
      }
    }
    mesh.positions[v] = Vec4(p[0], p[1], p[2], k == 4 ? p[3] : 1.0f);
  }

  // Per-vertex attributes: exactly `per_vertex` finite numbers per vertex.
  auto read_attribute = [&](const char* key, size_t per_vertex, auto&& store) {
    auto cursor = c.get(key);
    if (!cursor) return;
    const std::vector<float> values = read_float_stream(*cursor);
    if (values.size() != vertex_count * per_vertex)
      cursor->fail("expected " + std::to_string(per_vertex) + " numbers per vertex (" +
                   std::to_string(vertex_count) + " vertices: " + std::to_string(vertex_count * per_vertex) +
                   " numbers), got " + std::to_string(values.size()));
    for (size_t i = 0; i < values.size(); ++i)
      if (!std::isfinite(values[i]))
        cursor->fail("vertex " + std::to_string(i / per_vertex) + " has a non-finite " + key + " value");
    store(values);
  };
  read_attribute("colors", 4, [&](const std::vector<float>& v) {
    mesh.colors.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) mesh.colors[i] = Vec4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
  });
  read_attribute("uvs", 2, [&](const std::vector<float>& v) {
    mesh.uvs.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) mesh.uvs[i] = Vec2(v[2 * i], v[2 * i + 1]);
  });
  read_attribute("normals", 3, [&](const std::vector<float>& v) {
    mesh.normals.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) mesh.normals[i] = Eigen::Vector3f(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
  });

  if (auto indices = c.get("indices")) {
    mesh.indices = read_index_stream(*indices, mesh.index_bits);
    // Frame.h reads an empty index list as non-indexed; an explicit empty list is a mistake.
    if (mesh.indices.empty()) indices->fail("an empty index list; omit \"indices\" for a non-indexed mesh");
    for (size_t i = 0; i < mesh.indices.size(); ++i)
      if (mesh.indices[i] >= vertex_count)
        (indices->json().is_array() ? indices->at(i) : *indices)
            .fail("index " + std::to_string(i) + " is " + std::to_string(mesh.indices[i]) +
                  ", not below the vertex count " + std::to_string(vertex_count));
  }
  m_trace.meshes.push_back(std::move(mesh));
}

}  // namespace tbdr::trace_parsing

namespace tbdr {

using trace_parsing::TraceParser;
namespace fs = std::filesystem;

Trace read_trace_text(const std::string& json_text, const fs::path& base_dir, const std::string& display_name) {
  const nlohmann::json document = parse_json_strict(json_text, display_name);
  return TraceParser(display_name, base_dir).parse(document);
}

Trace read_trace(const fs::path& file) {
  const std::string display_name = file.string();
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw InputError(display_name, "is a folder, expected a trace file");
  const std::string text = read_input_file(file, InputLimits::kTextBytes, display_name);
  const fs::path base_dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  return read_trace_text(text, base_dir, display_name);
}

}  // namespace tbdr