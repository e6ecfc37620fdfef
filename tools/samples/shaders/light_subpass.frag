// Lighting subpass of the one-render-pass deferred sample: reads the G-buffer with subpassLoad.
#version 450
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput albedo;
layout(input_attachment_index = 1, set = 0, binding = 1) uniform subpassInput normal;
layout(input_attachment_index = 2, set = 0, binding = 2) uniform subpassInput depth;
layout(location = 0) out vec4 out_color;
void main() {
  vec3 n = subpassLoad(normal).xyz * 2.0 - 1.0;
  float d = subpassLoad(depth).x;
  float light = max(0.0, dot(n, normalize(vec3(0.3, 0.4, 1.0))));
  out_color = vec4(subpassLoad(albedo).rgb * (0.2 + light) * (d < 1.0 ? 1.0 : 0.0), 1.0);
}
