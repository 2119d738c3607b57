# Writes docs/architecture.svg, the data-flow picture of docs/ARCHITECTURE.md: python3 docs/architecture_svg.py
import html
import os
W, H = 1280, 600
out = []
def box(x, y, w, h, title, lines=(), fill="#eef3fb", stroke="#4a6fa5", tcol="#1d2b3a"):
    out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>')
    out.append(f'<text x="{x + w/2}" y="{y + 20}" text-anchor="middle" font-weight="bold" font-size="14" fill="{tcol}">{html.escape(title)}</text>')
    for i, l in enumerate(lines):
        out.append(f'<text x="{x + w/2}" y="{y + 38 + 15*i}" text-anchor="middle" font-size="11.5" fill="#333">{html.escape(l)}</text>')
    return (x, y, w, h)
def arrow(x1, y1, x2, y2, label=None, dashed=False):
    d = ' stroke-dasharray="5,4"' if dashed else ''
    out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#555" stroke-width="1.6" marker-end="url(#a)"{d}/>')
    if label:
        out.append(f'<text x="{(x1+x2)/2}" y="{(y1+y2)/2 - 6}" text-anchor="middle" font-size="11" fill="#555">{html.escape(label)}</text>')
def col(x, text):
    out.append(f'<text x="{x}" y="28" text-anchor="middle" font-size="13" font-style="italic" fill="#666">{html.escape(text)}</text>')

col(95, "input"); col(330, "reader or stream"); col(575, "point cloud"); col(815, "renderer"); col(1130, "image and window")
IN = "#f6f1e6"; INS = "#a5804a"
box(10, 60, 170, 70, "a file", ["PLY LAS LAZ E57", "PCD PTS XYZ/TXT/CSV"], IN, INS)
box(10, 182, 170, 56, "a procedural scene", ["terrain, galaxy, cube"], IN, INS)
box(10, 300, 170, 86, "a survey", ["a COPC file or URL,", "a folder of tiles,", "a .vpc (PDAL wrench)"], IN, INS)
box(220, 40, 220, 110, "io: formats, laz, copc", ["the format table picks the reader;", "memory-mapped, decoded", "in parallel (LAZ: chunks", "on every core)"])
box(220, 177, 220, 66, "engine: scenes", ["point i from (seed, i),", "generated in parallel"])
box(220, 275, 220, 130, "io: stream", ["byte source: file or HTTP ranges", "survey: the tiles of the inputs", "LOD: the nodes the view needs", "workers: read, decode, cache", "within the point budget"])
box(480, 40, 190, 110, "PointCloud", ["engine_core", "float xyz + double origin", "RGBA8 colors, intensity,", "class, returns, fields"], "#eef8ee", "#4f8a4f")
box(480, 177, 190, 66, "engine: colorize", ["color modes, class filter", "(the GPU: their recipe)"], "#eef8ee", "#4f8a4f")
box(480, 290, 190, 96, "the pool", ["a PointCloud of fixed", "capacity: nodes copied in,", "changed ranges to the", "renderers each frame"], "#eef8ee", "#4f8a4f")
box(720, 50, 200, 120, "CPU renderer", ["engine", "threads: project, depth test", "(64-bit key, atomic min),", "resolve; EDL, HQ splats,", "culling, pick"])
box(720, 240, 200, 130, "CUDA renderer", ["kernels", "the device cloud (plain or", "compact), raster, resolve;", "EDL, HQ, culling, pick;", "draws into a GL buffer"])
out.append('<text x="820" y="400" text-anchor="middle" font-size="11.5" fill="#333">both behind engine/renderer.h; both</text>')
out.append('<text x="820" y="415" text-anchor="middle" font-size="11.5" fill="#333">compute engine/projection.h\'s math:</text>')
out.append('<text x="820" y="430" text-anchor="middle" font-size="11.5" font-weight="bold" fill="#333">the same image, pixel for pixel</text>')
box(975, 60, 135, 70, "Image", ["RGBA8 + depth", "(host)"], "#f3eef8", "#7a5a9a")
box(975, 270, 135, 80, "GL pixel buffer", ["CUDA-OpenGL", "interop: no", "host copy"], "#f3eef8", "#7a5a9a")
box(1140, 40, 130, 90, "headless", ["PNG, timings,", "--pick, --info,", "--convert"], "#fbeeee", "#a55a5a")
box(1140, 195, 130, 160, "viewer", ["display: texture,", "fullscreen pass;", "SDL2 window,", "Dear ImGui panel,", "fly camera; jobs", "off the frame's", "thread"], "#fbeeee", "#a55a5a")
arrow(180, 95, 220, 95)
arrow(180, 210, 220, 210)
arrow(180, 340, 220, 340)
arrow(440, 95, 480, 95)
arrow(440, 195, 480, 130)
arrow(440, 340, 480, 338)
arrow(575, 177, 575, 152, dashed=True)
arrow(575, 243, 575, 288, dashed=True)
arrow(670, 100, 720, 105)
arrow(670, 125, 720, 270)
arrow(670, 315, 720, 145)
arrow(670, 340, 720, 320)
arrow(920, 105, 975, 100)
arrow(920, 265, 975, 120)
out.append('<text x="955" y="205" text-anchor="middle" font-size="11" fill="#555">render()</text>')
arrow(920, 310, 975, 310)
out.append('<text x="947" y="300" text-anchor="middle" font-size="11" fill="#555">to_gl</text>')
arrow(1110, 85, 1140, 85)
arrow(1110, 115, 1140, 240)
out.append('<text x="1150" y="170" text-anchor="start" font-size="11" fill="#555">copied in</text>')
arrow(1110, 310, 1140, 310)
box(220, 470, 450, 60, "io: convert", ["any inputs, merged, out of core and in parallel", "-> COPC (octree built on disk), LAZ or LAS"], "#fdf6e3", "#b58900")
arrow(95, 386, 220, 495, dashed=True)
arrow(180, 120, 205, 470, dashed=True)
out.append('<text x="640" y="575" text-anchor="middle" font-size="12" fill="#666">solid: what a frame draws; dashed: colors computed for a cloud, and conversion</text>')
svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">'
       '<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>'
       f'<rect width="{W}" height="{H}" fill="white"/>' + "\n".join(out) + '</svg>\n')
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "architecture.svg"), "w").write(svg)
