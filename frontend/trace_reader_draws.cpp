// Trace reader, draws: transforms, pipeline state, programs and their bindings, per-draw costs and
// image references (traces/README.md DRAW).
#include "frontend/trace_parser.h"

namespace tbdr::trace_parsing {

// ---- draws ----------------------------------------------------------------------------------------

Draw TraceParser::parse_draw(const JsonCursor& c, const Subpass& subpass, bool in_rendering_scope) {
  if (in_rendering_scope)
    c.expect_object({"name", "mesh", "first_index", "index_count", "instance_count", "transform", "viewport",
                     "scissor", "state", "program", "cost", "per_tile", "line_width", "point_size",
                     "color_locations", "local_reads", "barrier_before"});
  else
    c.expect_object({"name", "mesh", "first_index", "index_count", "instance_count", "transform", "viewport",
                     "scissor", "state", "program", "cost", "per_tile", "line_width", "point_size"});
  Draw draw;
  if (auto name = c.get("name")) draw.name = name->as_name();
  draw.mesh = m_meshes.lookup(c.require("mesh"));
  const Mesh& mesh = m_trace.meshes[draw.mesh];

  // The range of indices (vertices when non-indexed); 0 / absent count = the rest of the mesh.
  const uint64_t total = mesh.indices.empty() ? mesh.positions.size() : mesh.indices.size();
  const char* unit = mesh.indices.empty() ? "vertices" : "indices";
  draw.first_index = read_uint(c, "first_index", 0);
  if (draw.first_index > total)
    c.child("first_index").fail("first_index " + std::to_string(draw.first_index) + " is beyond the mesh's " +
                                std::to_string(total) + " " + unit);
  draw.index_count = read_uint(c, "index_count", 0);
  if (draw.index_count == 0) draw.index_count = static_cast<uint32_t>(total - draw.first_index);
  if (uint64_t(draw.first_index) + draw.index_count > total)
    c.child("index_count").fail("range " + std::to_string(draw.first_index) + " + " +
                                std::to_string(draw.index_count) + " exceeds the mesh's " + std::to_string(total) +
                                " " + unit);
  draw.instance_count = read_uint(c, "instance_count", 1, 1);
  m_pass_vertices += uint64_t(draw.index_count) * draw.instance_count;
  if (m_pass_vertices > kMaxVerticesPerPass)
    (c.get("instance_count") ? c.child("instance_count") : c.child("index_count"))
        .fail("the render pass draws " + std::to_string(m_pass_vertices) + " vertices up to this draw " +
              "(index_count x instance_count), over the limit of " + std::to_string(kMaxVerticesPerPass) +
              " (traces/README.md \"Limits\")");

  if (auto transform = c.get("transform")) draw.transform = parse_transform(*transform);
  check_transform_fits_mesh(c.get("transform") ? c.child("transform") : c, draw.transform, draw.mesh);

  if (auto viewport = c.get("viewport")) {
    viewport->expect_object({"x", "y", "width", "height", "min_depth", "max_depth"});
    Viewport v;
    if (auto x = viewport->get("x")) v.x = x->as_float();
    if (auto y = viewport->get("y")) v.y = y->as_float();
    auto positive = [](const JsonCursor& size) {
      const float value = size.as_float();
      if (!(value > 0.0f)) size.fail("expected a number > 0, got " + JsonCursor::describe(size.json()));
      return value;
    };
    v.width = positive(viewport->require("width"));
    v.height = positive(viewport->require("height"));
    if (auto min_depth = viewport->get("min_depth")) v.min_depth = min_depth->as_float(0.0, 1.0);
    if (auto max_depth = viewport->get("max_depth")) v.max_depth = max_depth->as_float(0.0, 1.0);
    draw.viewport = v;
  }
  if (auto scissor = c.get("scissor")) draw.scissor = parse_rect(*scissor);
  if (auto state = c.get("state")) draw.state = parse_state(*state, subpass.color.size());
  // Absent: the default program (flat) with its default parameters.
  static const nlohmann::json kNoProgram = nlohmann::json::object();
  draw.program = parse_program(c.get("program").value_or(JsonCursor(kNoProgram, m_file, c.pointer() + "/program")),
                               false);
  check_binding_coordinates(c, draw.program, mesh);
  if (auto cost = c.get("cost")) draw.cost = parse_cost(*cost);
  draw.per_tile = read_bool(c, "per_tile", false);
  parse_primitive_size(c, mesh, draw);
  return draw;
}

// `line_width` (lines, line_strip) and `point_size` (points): 1 to 255 pixels, llvmpipe's range
// (GL_ALIASED_LINE_WIDTH_RANGE, GL_ALIASED_POINT_SIZE_RANGE). A depth bias applies to polygons
// only (Vulkan "Depth Bias"): a line or point draw's is dropped here.
void TraceParser::parse_primitive_size(const JsonCursor& c, const Mesh& mesh, Draw& draw) const {
  const bool lines = is_line_topology(mesh.topology), points = mesh.topology == Topology::points;
  if (auto width = c.get("line_width")) {
    if (!lines)
      width->fail("line_width applies to lines and line_strip meshes; mesh " + in_quotes(mesh.name) + " is not one");
    draw.line_width = width->as_float(1.0, 255.0);
  }
  if (auto size = c.get("point_size")) {
    if (!points) size->fail("point_size applies to points meshes; mesh " + in_quotes(mesh.name) + " is not one");
    draw.point_size = size->as_float(1.0, 255.0);
  }
  if (!is_polygon_topology(mesh.topology)) draw.state.depth_bias.enable = false;
}

// A binding sampled at uvs (`coordinates`: "uv") belongs to the `captured` program, the one whose
// sampling a trace describes, and needs a mesh that carries uvs to interpolate.
void TraceParser::check_binding_coordinates(const JsonCursor& draw, const Program& program, const Mesh& mesh) const {
  for (const Binding& b : program.bindings) {
    if (!b.at_uv) continue;
    const JsonCursor where = draw.child("program").child("bindings").child(b.slot).child("coordinates");
    if (program.name != "captured")
      where.fail("coordinates \"uv\" applies to the captured program's bindings only; program " +
                 in_quotes(program.name) + " samples where it always does");
    if (mesh.uvs.empty()) where.fail("coordinates \"uv\" needs uvs, and mesh " + in_quotes(mesh.name) + " has none");
  }
}

Transform TraceParser::parse_transform(const JsonCursor& c) const {
  c.expect_object({"mvp", "model", "view", "proj", "clip_space"});
  Transform t;
  t.clip_space = read_bool(c, "clip_space", false);
  const bool has_parts = c.has("model") || c.has("view") || c.has("proj");
  if (t.clip_space && (c.has("mvp") || has_parts))
    c.child("clip_space").fail("clip_space draws take no matrices (mvp/model/view/proj)");
  if (c.has("mvp") && has_parts) c.child("mvp").fail("give either mvp or model/view/proj, not both");
  if (auto mvp = c.get("mvp")) t.mvp = parse_matrix(*mvp);
  if (has_parts) {
    Mat4 model = Mat4::Identity(), view = Mat4::Identity(), proj = Mat4::Identity();
    if (auto m = c.get("model")) model = parse_matrix(*m);
    if (auto v = c.get("view")) view = parse_matrix(*v);
    if (auto p = c.get("proj")) proj = parse_matrix(*p);
    t.mvp = proj * view * model;
    t.model = model;
  }
  return t;
}

void TraceParser::check_transform_fits_mesh(const JsonCursor& where, const Transform& t, int32_t mesh_index) const {
  const Mesh& mesh = m_trace.meshes[mesh_index];
  if (t.clip_space && mesh.position_components != 4)
    where.fail("clip_space needs a mesh with position_components 4; mesh " + in_quotes(mesh.name) + " has 3");
  if (!t.clip_space && mesh.position_components == 4)
    where.fail("mesh " + in_quotes(mesh.name) +
               " has clip-space positions (position_components 4); the draw needs \"transform\": {\"clip_space\": true}");
}

PipelineState TraceParser::parse_state(const JsonCursor& c, size_t color_slots) const {
  c.expect_object({"cull", "front_face", "depth_test", "depth_write", "depth_compare", "stencil_test",
                   "stencil_front", "stencil_back", "blend", "blend_constants", "discard", "shader_depth_write",
                   "depth_bias"});
  PipelineState s;
  s.cull = read_enum<CullMode>(c, CullMode::none, kCullModes, "cull");
  s.front_face = read_enum<FrontFace>(c, FrontFace::counter_clockwise, kFrontFaces, "front_face");
  s.depth_test = read_bool(c, "depth_test", false);
  s.depth_write = read_bool(c, "depth_write", false);
  s.depth_compare = read_enum<CompareOp>(c, CompareOp::less, kCompareOps, "depth_compare");
  s.stencil_test = read_bool(c, "stencil_test", false);
  auto parse_face = [](const JsonCursor& f) {
    f.expect_object({"fail_op", "pass_op", "depth_fail_op", "compare_op", "compare_mask", "write_mask", "reference"});
    StencilFaceState face;
    face.fail_op = read_enum<StencilOp>(f, StencilOp::keep, kStencilOps, "fail_op");
    face.pass_op = read_enum<StencilOp>(f, StencilOp::keep, kStencilOps, "pass_op");
    face.depth_fail_op = read_enum<StencilOp>(f, StencilOp::keep, kStencilOps, "depth_fail_op");
    face.compare_op = read_enum<CompareOp>(f, CompareOp::always, kCompareOps, "compare_op");
    face.compare_mask = read_uint(f, "compare_mask", 0xff);
    face.write_mask = read_uint(f, "write_mask", 0xff);
    face.reference = read_uint(f, "reference", 0);
    return face;
  };
  if (auto front = c.get("stencil_front")) s.stencil_front = parse_face(*front);
  if (auto back = c.get("stencil_back")) s.stencil_back = parse_face(*back);
  if (auto blend = c.get("blend")) {
    const size_t n = blend->expect_array();
    if (n > color_slots)
      blend->fail("expected at most one blend state per color slot (" + std::to_string(color_slots) + "), got " +
                  std::to_string(n));
    for (const auto& b : blend->elements()) {
      b.expect_object({"enable", "src_color", "dst_color", "color_op", "src_alpha", "dst_alpha", "alpha_op", "write_mask"});
      BlendAttachmentState state;
      state.enable = read_bool(b, "enable", false);
      state.src_color = read_enum<BlendFactor>(b, BlendFactor::one, kBlendFactors, "src_color");
      state.dst_color = read_enum<BlendFactor>(b, BlendFactor::zero, kBlendFactors, "dst_color");
      state.color_op = read_enum<BlendOp>(b, BlendOp::add, kBlendOps, "color_op");
      state.src_alpha = read_enum<BlendFactor>(b, BlendFactor::one, kBlendFactors, "src_alpha");
      state.dst_alpha = read_enum<BlendFactor>(b, BlendFactor::zero, kBlendFactors, "dst_alpha");
      state.alpha_op = read_enum<BlendOp>(b, BlendOp::add, kBlendOps, "alpha_op");
      if (auto mask = b.get("write_mask")) {
        // A subset of "rgba", e.g. "rgb" or "" (nothing written).
        state.write_mask = 0;
        for (char ch : mask->as_string()) {
          const size_t bit = std::string_view("rgba").find(ch);
          if (bit == std::string_view::npos || (state.write_mask & (1u << bit)))
            mask->fail("expected a subset of \"rgba\" with each letter once, got " + JsonCursor::describe(mask->json()));
          state.write_mask |= 1u << bit;
        }
      }
      s.blend.push_back(state);
    }
  }
  if (auto constants = c.get("blend_constants")) s.blend_constants = to_vec4(constants->as_floats(4));
  s.discard = read_bool(c, "discard", false);
  s.shader_depth_write = read_bool(c, "shader_depth_write", false);
  if (auto bias = c.get("depth_bias")) {
    bias->expect_object({"constant", "slope", "clamp"});
    s.depth_bias.enable = true;
    if (auto v = bias->get("constant")) s.depth_bias.constant = v->as_float();
    if (auto v = bias->get("slope")) s.depth_bias.slope = v->as_float();
    if (auto v = bias->get("clamp")) s.depth_bias.clamp = v->as_float();
  }
  return s;
}

Program TraceParser::parse_program(const JsonCursor& c, bool compute) const {
  c.expect_object({"name", "params", "bindings"});
  Program program;
  if (compute)
    program.name = c.require("name").as_name();
  else if (auto name = c.get("name"))
    program.name = name->as_name();
  const JsonCursor name_cursor = c.child("name");
  const ProgramInfo* info = find_program(program.name);
  const std::string expected = JsonCursor::join(program_names(compute));
  if (!info) name_cursor.fail("unknown program " + in_quotes(program.name) + "; expected one of: " + expected);
  if (info->compute != compute)
    name_cursor.fail(in_quotes(program.name) + " is a " + (info->compute ? "compute" : "fragment") + " program; " +
                     (compute ? "a compute pass" : "a draw") + " needs one of: " + expected);

  // Every parameter gets a value (defaults from the table), so sim/ reads them without fallbacks.
  for (const auto& p : info->params) program.params[p.name] = p.defaults;
  if (auto params = c.get("params")) merge_params(*params, *info, program.params);

  std::map<std::string, JsonCursor> given;
  if (auto bindings = c.get("bindings")) {
    for (const auto& [slot, value] : bindings->members()) {
      bool known = false;
      for (const char* s : info->bindings) known = known || slot == s;
      for (const char* s : info->optional_bindings) known = known || slot == s;
      if (!known) {
        std::vector<std::string> slots(info->bindings.begin(), info->bindings.end());
        slots.insert(slots.end(), info->optional_bindings.begin(), info->optional_bindings.end());
        value.fail("unknown binding slot " + in_quotes(slot) + " of program " + in_quotes(program.name) + "; valid: " +
                   (slots.empty() ? std::string("(none)") : JsonCursor::join(slots)));
      }
      given.emplace(slot, value);
    }
  }
  for (const char* slot : info->bindings) {
    auto it = given.find(slot);
    if (it == given.end())
      c.child("bindings").child(slot).fail("program " + in_quotes(program.name) + " needs binding " + in_quotes(slot));
    program.bindings.push_back(parse_binding(it->second, slot));
  }
  for (const char* slot : info->optional_bindings) {
    auto it = given.find(slot);
    if (it != given.end()) program.bindings.push_back(parse_binding(it->second, slot));
  }
  return program;
}

Binding TraceParser::parse_binding(const JsonCursor& c, const std::string& slot) const {
  c.expect_object({"texture", "image", "mip", "layer", "filter", "address", "coordinates"});
  Binding b;
  b.slot = slot;
  const bool has_texture = c.has("texture"), has_image = c.has("image");
  if (has_texture == has_image) c.fail("expected exactly one of \"texture\" or \"image\"");
  if (has_texture) {
    if (c.has("mip") || c.has("layer"))
      c.child(c.has("mip") ? "mip" : "layer").fail("mip and layer apply to image bindings only");
    b.resource = c.child("texture").as_name();
    b.resource_index = m_textures.lookup(c.child("texture"));
  } else {
    b.is_image = true;
    b.resource = c.child("image").as_name();
    b.resource_index = m_images.lookup(c.child("image"));
    const ImageDesc& image = m_trace.images[b.resource_index];
    if (image.samples != 1)
      c.child("image").fail("image " + in_quotes(image.name) + " has " + std::to_string(image.samples) +
                            " samples; a sampled binding needs a single-sample image");
    b.mip = parse_mip(c, image);
    b.layer = parse_layer(c, image);
  }
  b.filter = read_enum<Filter>(c, Filter::nearest, kFilters, "filter");
  b.address = read_enum<AddressMode>(c, AddressMode::repeat, kAddressModes, "address");
  static constexpr EnumEntry<bool> kCoordinates[] = {{"pixel", false}, {"uv", true}};
  b.at_uv = read_enum<bool>(c, false, kCoordinates, "coordinates");
  return b;
}

DrawCost TraceParser::parse_cost(const JsonCursor& c) const {
  c.expect_object({"alu", "texture_samples", "tile_reads", "varyings", "vertex_alu"});
  constexpr double kInf = std::numeric_limits<double>::infinity();
  DrawCost cost;
  auto read = [&](const char* key, float& out) {
    if (auto v = c.get(key)) out = v->as_float(0.0, kInf);
  };
  read("alu", cost.alu);
  read("texture_samples", cost.texture_samples);
  read("tile_reads", cost.tile_reads);
  read("varyings", cost.varyings);
  read("vertex_alu", cost.vertex_alu);
  return cost;
}

// ---- compute, transfer and barrier passes ---------------------------------------------------------

ImageRef TraceParser::parse_image_ref(const JsonCursor& c, bool allow_step, bool allow_contents) {
  if (allow_step)
    c.expect_object({"image", "mip", "layer", "region", "step"});
  else if (allow_contents)
    c.expect_object({"image", "mip", "layer", "region", "contents"});
  else
    c.expect_object({"image", "mip", "layer", "region"});
  ImageRef ref;
  ref.image = m_images.lookup(c.require("image"));
  const ImageDesc& image = m_trace.images[ref.image];
  ref.mip = parse_mip(c, image);
  ref.layer = parse_layer(c, image);
  if (auto region = c.get("region")) {
    ref.region = parse_rect(*region);
    require_rect_inside(*region, *ref.region, mip_extent(image.width, ref.mip), mip_extent(image.height, ref.mip),
                        "mip " + std::to_string(ref.mip) + " of image " + in_quotes(image.name));
  }
  if (auto step = c.get("step")) {
    step->expect_array(2, 2);
    ref.step_x = step->at(0).as_uint(1, kMaxImageSize);
    ref.step_y = step->at(1).as_uint(1, kMaxImageSize);
  }
  if (auto contents = c.get("contents")) {
    contents->expect_object({"file", "captured"});
    ref.contents.emplace();
    ref.contents->mip = ref.mip;
    ref.contents->layer = ref.layer;
    decode_contents(*contents, image, *ref.contents);
  }
  return ref;
}

}  // namespace tbdr::trace_parsing
