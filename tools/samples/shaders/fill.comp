// The transfers sample's compute dispatch: writes a gradient into a 128x128 storage image.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D target;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(target, p, vec4(vec2(p) / 128.0, 0.5, 1.0));
}
