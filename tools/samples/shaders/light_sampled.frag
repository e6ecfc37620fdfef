// Lighting pass of the two-render-pass deferred sample: the stored G-buffer read with texelFetch.
#version 450
layout(set = 0, binding = 0) uniform sampler2D albedo;
layout(set = 0, binding = 1) uniform sampler2D normal;
layout(set = 0, binding = 2) uniform sampler2D depth;
layout(location = 0) out vec4 out_color;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec3 n = texelFetch(normal, p, 0).xyz * 2.0 - 1.0;
  float d = texelFetch(depth, p, 0).x;
  float light = max(0.0, dot(n, normalize(vec3(0.3, 0.4, 1.0))));
  out_color = vec4(texelFetch(albedo, p, 0).rgb * (0.2 + light) * (d < 1.0 ? 1.0 : 0.0), 1.0);
}
