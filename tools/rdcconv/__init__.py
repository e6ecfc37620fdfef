"""rdcconv: RenderDoc captures (.rdc) of Vulkan, OpenGL ES and OpenGL frames -> tbdrsim traces; run
through tools/rdc2trace. Where things are, in the order a conversion meets them:

  cli.py               command line, one replay session for every capture, all traces or none
  common.py            private Xvfb, lavapipe selection, one-line errors, the crash supervisor
  replay.py            opening a capture, the frame's events, moving the replay between events
  structured.py        RenderDoc's structured chunk data as plain Python
  vulkan.py            Vulkan render passes, clears, transfers, barriers; Converter (both APIs)
  opengl.py            OpenGL ES / OpenGL render passes inferred from the call stream
  opengl_draws.py      GL draws' meshes and pipeline state
  opengl_transfers.py  GL blits, texture copies and mipmap generation as passes
  draws.py             Vulkan draws: clip-space meshes, pipeline state, shader costs, bindings
  sampling.py          where a fragment shader samples: the vertex output carried as the uvs
  meshes.py            post-vertex-shader positions and indices as numpy arrays, .bin bytes
  shaders.py           static shader costs of SPIR-V and GLSL
  compute.py           compute dispatches as `captured_compute` passes
  textures.py          PNG writing, pixel decoding, material textures and attachment pixels
  trace_writer.py      the trace JSON and the staged, all-or-nothing writing of the outputs
  pixels.py            the replay without rasterization, and the pixel reader that rasterizes
  split.py             replays split over worker processes, their draws applied in event order
  sequence.py          captures of consecutive frames into one trace sharing its resources
"""
