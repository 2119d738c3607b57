#version 330 core
// Fullscreen pass: one triangle that covers the viewport, generated from gl_VertexID (no vertex
// buffer). The triangle's corners are (-1,-1), (3,-1), (-1,3); the part inside [-1,1]^2 is the
// screen, and uv runs 0..1 across it.
out vec2 v_uv;
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
  v_uv = p * 0.5 + 0.5;
  gl_Position = vec4(p, 0.0, 1.0);
}
