#version 330 core
// Shows the renderer's RGBA8 image. The renderers write the top row first while GL's texture
// origin is the bottom-left corner, so v is flipped here instead of flipping rows on upload.
in vec2 v_uv;
out vec4 frag_color;
uniform sampler2D u_image;
void main() {
  frag_color = vec4(texture(u_image, vec2(v_uv.x, 1.0 - v_uv.y)).rgb, 1.0);
}
