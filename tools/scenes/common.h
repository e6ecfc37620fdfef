// make_scenes' shared vocabulary: JSON and file writing (stable formatting, atomic writes, PNG),
// Vulkan-convention matrices, and the small builders of trace format v1 objects every family uses.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tbdr::scenes {

namespace fs = std::filesystem;
// Insertion-ordered objects so the files read in the order the format's tables list their keys.
using Json = nlohmann::ordered_json;
using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;

constexpr double kPi = 3.14159265358979323846;

// ---- JSON and file writing -----------------------------------------------------------------------

// A number rounded to six decimals (far below a pixel at 1920x1080); -0 becomes 0.
Json num(double v);
Json nums(const std::vector<double>& values);
Json mat_json(const Mat4& m);  // column-major, as the format asks

// Written next to the target, then renamed, so a failed run never leaves half a file.
void write_file(const fs::path& path, const void* data, size_t size);
// Short values on one line, long scalar arrays wrapped (a 4x4 matrix one column per line).
void write_json(const fs::path& path, const Json& v);
// RGBA8 rows, top row first.
void write_png(const fs::path& path, int width, int height, const std::vector<uint8_t>& rgba);

// ---- matrices (Vulkan conventions) -------------------------------------------------------------

Mat4 translate(double x, double y, double z);
Mat4 scale(double x, double y, double z);
Mat4 rotate(double degrees, const Vec3& axis);
// Right-handed view space, the camera looking down -z.
Mat4 look_at(const Vec3& eye, const Vec3& target, const Vec3& up);
// Vulkan clip space: z in [0,1] (near -> 0, far -> 1) and framebuffer y pointing down.
Mat4 perspective_vulkan(double fov_y_degrees, double aspect, double near_z, double far_z);

// ---- trace format v1 objects ---------------------------------------------------------------------

Json trace_header(const std::string& name);
Json cost(double alu, double texture_samples, double varyings, double vertex_alu);
Json flat_program(const std::vector<double>& color);
Json vertex_color_program(const std::vector<double>& tint);
Json program_json(const std::string& name, Json bindings, Json params = Json::object());
// An image read by a post-processing program; clamp_to_edge so bilinear taps never wrap around.
Json image_binding(const std::string& image_name);
Json alpha_blend();
Json blend_state(const char* src, const char* dst, const char* op);

// Meshes given directly in normalized device coordinates (transform identity) so every pixel
// can be worked out by hand: x_px = (x + 1) / 2 * width, y_px = (y + 1) / 2 * height
// (Vulkan: y = -1 is the top row).
struct PixelSpace {
  int width, height;
  double x(double px) const { return 2.0 * px / width - 1.0; }
  double y(double py) const { return 2.0 * py / height - 1.0; }
};

// Indexed quad covering pixels [x0, x1) x [y0, y1) at depth z (counter-clockwise on screen).
Json rect_mesh(const std::string& name, const PixelSpace& s, double x0, double y0, double x1, double y1, double z,
               const std::vector<Vec4>& corner_colors = {});
// One triangle in clip space (xyzw, w = 1) covering the whole viewport at depth z.
Json fullscreen_triangle_mesh(const std::string& name, double z);

Json image(const std::string& name, const std::string& format, int w, int h, std::initializer_list<const char*> usage);
Json sized_image(const std::string& name, const std::string& format, int w, int h, std::initializer_list<const char*> usage,
                 int layers = 1, int samples = 1, bool transient = false);
Json color_attachment(const std::string& image_name, const std::string& load, const std::string& store,
                      const std::string& old_layout, const std::string& new_layout, const std::vector<double>& clear = {});
Json depth_attachment(const std::string& image_name, const std::string& load, const std::string& store,
                      const std::string& old_layout, const std::string& new_layout, int layer = -1);

Json simple_draw(const std::string& name, const std::string& mesh, const Json& program, Json state = Json::object(),
                 Json transform = Json());
// A draw of the full-screen triangle: every pixel of the render area shaded once.
Json fullscreen_draw(const std::string& name, const Json& program, double texture_samples, Json state = Json::object(),
                     const std::string& mesh = "fullscreen_triangle");
Json render_pass(const std::string& name, Json attachments, Json subpasses);
Json single_subpass(Json draws, int depth = -1);
// Subpass 0 (G-buffer) -> subpass 1 (lighting): the G-buffer's color and depth writes before
// the lighting fragments read them as input attachments, per region (same pixel).
Json gbuffer_to_lighting_dependency();

}  // namespace tbdr::scenes
