// The viewer's input: every SDL event goes to ImGui first (viewer.cpp's poll_events()); the app
// takes keys only when ImGui does not want the keyboard and mouse buttons and the wheel only when
// it does not want the mouse, as Dear ImGui's examples do; a button pressed counts only on the
// image (Viewer::Impl::area, the window less the docked panel). Key releases and the end of a
// right-drag always reach the camera, so nothing stays held.
#include <imgui.h>

#include "viewer/viewer_impl.h"

namespace pr {

void Viewer::Impl::handle_event(const SDL_Event& e) {
  const ImGuiIO& io = ImGui::GetIO();
  switch (e.type) {
    case SDL_QUIT:
      quit = true;
      break;
    case SDL_WINDOWEVENT:
      window_event(e.window);
      break;
    case SDL_DROPFILE:
    case SDL_DROPCOMPLETE:
      drop_event(e);
      break;
    case SDL_KEYDOWN:
    case SDL_KEYUP:
      key_event(e.key, io.WantCaptureKeyboard);
      break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
    case SDL_MOUSEMOTION:
    case SDL_MOUSEWHEEL:
      mouse_event(e, io.WantCaptureMouse);
      break;
    default:
      break;
  }
}

void Viewer::Impl::window_event(const SDL_WindowEvent& e) {
  if (e.event == SDL_WINDOWEVENT_CLOSE && e.windowID == SDL_GetWindowID(win.window)) quit = true;
  if (e.event == SDL_WINDOWEVENT_FOCUS_LOST) view.focus_lost();
}

void Viewer::Impl::drop_event(const SDL_Event& e) {
  // SDL sends one SDL_DROPFILE per file (the string is ours to free), then SDL_DROPCOMPLETE.
  if (e.type == SDL_DROPFILE) {
    if (e.drop.file) {
      open_box.dropped.emplace_back(e.drop.file);
      SDL_free(e.drop.file);
    }
    return;
  }
  auto paths = std::move(open_box.dropped);
  open_box.dropped.clear();
  start_open(paths);
}

void Viewer::Impl::key_event(const SDL_KeyboardEvent& e, bool imgui_wants_keys) {
  const bool down = e.type == SDL_KEYDOWN;
  // Releases always reach the camera, so a key pressed before ImGui took focus never sticks.
  if (down && imgui_wants_keys) return;
  if (down) annotations.flight.active = false;  // a key of the user's ends a flight
  view.fly_key(e.keysym.sym, down);
  if (!down || e.repeat) return;
  const Bounds* bounds = cloud.drawable() ? &cloud.bounds : nullptr;
  if (!view.view_key(e.keysym.sym, e.keysym.mod, bounds, win.aspect())) key_pressed(e.keysym.sym);
}

void Viewer::Impl::key_pressed(SDL_Keycode k) {
  if (polygon.key(k, pick_frame(), status)) return;  // Enter closes, Esc drops a polygon
  if (clips.key(k)) return;                          // PageUp / PageDown step the section
  switch (k) {
    case SDLK_ESCAPE:
      if (!measures.cancel()) quit = true;  // Esc first drops a measurement under way
      break;
    case SDLK_RETURN:
    case SDLK_KP_ENTER:
      measures.finish(pick_frame(), status);
      break;
    case SDLK_f:
      frame_cloud();
      break;
    case SDLK_r:
      view.camera = view.home;
      break;
    case SDLK_g:
      backend->switch_mode(!backend->gpu_active());
      break;
    case SDLK_F12:
    case SDLK_p:
      save_screenshot_key();
      break;
    case SDLK_x:
      picks.clear();
      break;
    case SDLK_TAB:
      panel.toggle(SDL_GetTicks());
      break;
    default:
      break;
  }
}

void Viewer::Impl::mouse_event(const SDL_Event& e, bool imgui_wants_mouse) {
  switch (e.type) {
    case SDL_MOUSEBUTTONDOWN:
      if (e.button.button == SDL_BUTTON_LEFT && profile.press(float(e.button.x), float(e.button.y)))
        break;  // the Profile window's image
      // Presses count on the image only (not over the panel, nor in a window too small for it).
      if (imgui_wants_mouse || !area.contains(float(e.button.x), float(e.button.y))) break;
      if (e.button.button == SDL_BUTTON_LEFT) {
        // The polygon tool takes presses while it draws; a press on a clip box's handle drags it
        // (clip_panel.h); elsewhere it picks.
        const PickFrame f = pick_frame();
        // An annotation's label flies to it (the polygon tool keeps its clicks while it draws).
        const int label = annotations.label_at(float(e.button.x), float(e.button.y));
        if (label >= 0 && !polygon.drawing) {
          fly_to_annotation(size_t(label));
          break;
        }
        if (polygon.click(float(e.button.x), float(e.button.y), e.button.clicks >= 2, f, status))
          break;
        const Bounds* world = cloud.points ? &cloud.bounds : nullptr;
        if (!f.drawn || !clips.press(e.button.x, e.button.y, f.camera, f.settings, f.area, world)) {
          measures.clicked(e.button.clicks >= 2);
          picks.click(e.button.x, e.button.y, f, *backend);
        }
      }
      if (e.button.button == SDL_BUTTON_RIGHT) view.start_look();
      break;
    case SDL_MOUSEBUTTONUP:
      if (e.button.button == SDL_BUTTON_LEFT &&
          profile.release(float(e.button.x), float(e.button.y), status))
        break;
      if (e.button.button == SDL_BUTTON_RIGHT && view.looking) view.end_look();
      if (e.button.button == SDL_BUTTON_LEFT) clips.release();
      break;
    case SDL_MOUSEMOTION:
      profile.motion(float(e.motion.x), float(e.motion.y), float(e.motion.xrel),
                     float(e.motion.yrel));
      if (view.looking) view.fly.look(view.camera, double(e.motion.xrel), double(e.motion.yrel));
      if (clips.dragging()) clips.drag(e.motion.x, e.motion.y);
      break;
    case SDL_MOUSEWHEEL:
      if (profile.wheel(double(e.wheel.y))) break;
      if (!imgui_wants_mouse) view.wheel(double(e.wheel.y));
      break;
    default:
      break;
  }
}

}  // namespace pr
