// G-buffer pass of the deferred samples: albedo and the encoded normal (n * 0.5 + 0.5).
#version 450
layout(location = 0) in vec4 in_color;
layout(location = 1) in vec3 in_normal;
layout(location = 0) out vec4 out_albedo;
layout(location = 1) out vec4 out_normal;
void main() {
  out_albedo = in_color;
  out_normal = vec4(normalize(in_normal) * 0.5 + 0.5, 1.0);
}
