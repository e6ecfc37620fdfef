// Point sample for tools/samples: nine points in a 3x3 grid from gl_VertexIndex (no vertex
// buffers), each 6 pixels wide by the shader's PointSize, with a color and a normal per row.
#version 450
layout(location = 0) out vec4 out_color;
layout(location = 1) out vec3 out_normal;
const vec4 colors[3] = vec4[](vec4(0.9, 0.2, 0.1, 1.0), vec4(0.1, 0.8, 0.3, 1.0), vec4(0.2, 0.3, 0.9, 1.0));
void main() {
  const int column = gl_VertexIndex % 3, row = gl_VertexIndex / 3;
  gl_Position = vec4(-0.6 + 0.6 * float(column), -0.6 + 0.6 * float(row), 0.5, 1.0);
  gl_PointSize = 6.0;
  out_color = colors[row];
  out_normal = vec3(0.0, 0.0, 1.0);
}
