// Sample scene for tools/samples: three overlapping triangles at different depths, generated from
// gl_VertexIndex (no vertex buffers), with a flat color and a normal per triangle.
#version 450
layout(location = 0) out vec4 out_color;
layout(location = 1) out vec3 out_normal;
const vec3 positions[9] = vec3[](
    vec3(-0.8, -0.7, 0.5), vec3(0.6, -0.5, 0.5), vec3(-0.2, 0.8, 0.5),
    vec3(-0.5, -0.2, 0.3), vec3(0.9, 0.1, 0.7), vec3(0.1, 0.9, 0.3),
    vec3(-0.9, 0.4, 0.2), vec3(0.3, -0.9, 0.2), vec3(0.7, 0.7, 0.9));
const vec4 colors[3] = vec4[](vec4(0.9, 0.2, 0.1, 1.0), vec4(0.1, 0.8, 0.3, 1.0), vec4(0.2, 0.3, 0.9, 1.0));
const vec3 normals[3] = vec3[](vec3(0.0, 0.0, 1.0), vec3(0.6, 0.0, 0.8), vec3(0.0, 0.6, 0.8));
void main() {
  gl_Position = vec4(positions[gl_VertexIndex], 1.0);
  out_color = colors[gl_VertexIndex / 3];
  out_normal = normals[gl_VertexIndex / 3];
}
