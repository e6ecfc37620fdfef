// Forward shading for the MSAA sample: vertex color times a simple directional light.
#version 450
layout(location = 0) in vec4 in_color;
layout(location = 1) in vec3 in_normal;
layout(location = 0) out vec4 out_color;
void main() {
  out_color = vec4(in_color.rgb * max(0.2, dot(normalize(in_normal), normalize(vec3(0.3, 0.4, 1.0)))), 1.0);
}
