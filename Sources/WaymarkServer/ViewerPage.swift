/// The viewer's one page (`GET /` of `waymark serve --pois`): HTML, CSS and JavaScript written
/// here, no framework, nothing from the internet. The map is the server's picture (`/render`)
/// with the places, the route and the callout drawn over it; the list beside it. The map and the
/// list are separate modules (`MapView`, `PlaceList`) that know nothing of each other; a small
/// coordinator wires them, as the seed app's container does by delegation, so the list also works
/// alone (narrow screens: map and list as tabs). The details editor saves with `PUT /pois/{id}`
/// and the version read (`If-Match`).
enum ViewerPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Waymark</title>
<link rel="icon" href="data:,">
<style>
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.4 "DejaVu Sans", Helvetica, Arial, sans-serif; color: #202124; height: 100vh;
    display: flex; flex-direction: column; }
  header { display: flex; align-items: center; gap: 12px; padding: 8px 12px; border-bottom: 1px solid #ddd; }
  header h1 { font-size: 16px; margin: 0; }
  #status { color: #5f6368; flex: 1; }
  #mode { margin-left: auto; border: 1px solid #ccc; border-radius: 6px; padding: 3px 6px; background: #fff; }
  #tabs { display: none; gap: 4px; }
  #tabs button { border: 1px solid #ccc; background: #fff; padding: 4px 10px; border-radius: 6px; }
  #tabs button.active { background: #1a73e8; color: #fff; border-color: #1a73e8; }
  main { flex: 1; display: flex; min-height: 0; }
  #map { position: relative; flex: 2; overflow: hidden; background: #f2efe9; cursor: grab; touch-action: none; }
  #map.dragging { cursor: grabbing; }
  #map img.base { position: absolute; left: 0; top: 0; user-select: none; pointer-events: none; }
  #map svg.overlay { position: absolute; left: 0; top: 0; pointer-events: none; }
  .pin { position: absolute; width: 24px; height: 32px; margin: -32px 0 0 -12px; cursor: pointer; border: 0; padding: 0;
    background: none; }
  .pin svg { width: 24px; height: 32px; }
  .pin.selected svg path { fill: #c5221f; }
  .cluster { position: absolute; width: 32px; height: 32px; margin: -16px 0 0 -16px; border-radius: 50%;
    background: #e8453c; color: #fff;
             font-weight: bold; border: 2px solid #fff; box-shadow: 0 0 0 4px rgba(232,69,60,.3); cursor: pointer; }
  #callout { position: absolute; display: none; background: #fff; border-radius: 12px;
    box-shadow: 0 2px 8px rgba(0,0,0,.25); padding: 8px 10px;
             min-width: 220px; transform: translate(-50%, calc(-100% - 44px)); align-items: center; gap: 10px;
               cursor: default; }
  #callout.open { display: flex; }
  #callout .text { flex: 1; }
  #callout .title { font-weight: bold; font-size: 15px; }
  #callout .subtitle { color: #5f6368; font-size: 12px; }
  #callout .coordinate { color: #80868b; font-size: 11px; }
  #callout button { border: 0; border-radius: 8px; width: 36px; height: 36px; cursor: pointer; font-weight: bold; }
  #callout .directions { background: #1a73e8; color: #fff; display: flex; align-items: center; justify-content: center;
    padding: 0; }
  #callout .details { background: #fff; color: #1a73e8; border: 2px solid #1a73e8; border-radius: 50%; width: 28px;
    height: 28px; font-family: Georgia, serif; }
  #zoom { position: absolute; right: 10px; top: 10px; display: flex; flex-direction: column; gap: 4px; }
  #zoom button { width: 32px; height: 32px; font-size: 18px; border: 1px solid #ccc; background: #fff;
    border-radius: 6px; cursor: pointer; }
  #hint { position: absolute; left: 50%; bottom: 12px; transform: translateX(-50%); background: rgba(32,33,36,.85);
    color: #fff; padding: 6px 12px; border-radius: 16px; display: none; }
  aside { flex: 1; border-left: 1px solid #ddd; overflow-y: auto; min-width: 240px; }
  #places { list-style: none; margin: 0; padding: 0; }
  #places li { padding: 8px 12px; border-bottom: 1px solid #eee; cursor: pointer; }
  #places li.selected { background: #e8f0fe; }
  #places li .subtitle { color: #5f6368; font-size: 12px; }
  #steps { list-style: none; margin: 0; padding: 0; border-top: 2px solid #1a73e8; }
  #steps li { padding: 6px 12px; border-bottom: 1px solid #eee; cursor: pointer; font-size: 13px; }
  #steps li.selected { background: #fff3cd; }
  #steps .summary { font-weight: bold; cursor: default; display: flex; align-items: center; gap: 8px; }
  #steps .back { border: 1px solid #ccc; background: #fff; border-radius: 6px; padding: 2px 8px; cursor: pointer; }
  #steps .figures { color: #5f6368; font-size: 12px; }
  #editor { position: fixed; inset: 0; background: rgba(0,0,0,.35); display: none; align-items: center;
    justify-content: center; }
  #editor.open { display: flex; }
  #editor form { background: #fff; border-radius: 12px; padding: 16px; width: min(420px, 92vw); display: flex;
    flex-direction: column; gap: 8px; }
  #editor label { font-size: 12px; color: #5f6368; }
  #editor input { font: inherit; padding: 6px 8px; border: 1px solid #ccc; border-radius: 6px; }
  #editor input[readonly] { background: #f1f3f4; }
  #editor .buttons { display: flex; justify-content: flex-end; gap: 8px; }
  #editor .message { color: #c5221f; min-height: 1.4em; }
  @media (max-width: 700px) {
    #tabs { display: flex; }
    main > #map, main > aside { flex: 1; }
    main.show-list > #map, main.show-map > aside { display: none; }
  }
</style>
</head>
<body>
<header><h1>Waymark</h1><span id="status">Loading…</span>
  <select id="mode" aria-label="Travel mode" hidden></select>
  <nav id="tabs"><button id="tab-map" class="active">Map</button><button id="tab-list">List</button></nav></header>
<main class="show-map">
  <div id="map" aria-label="Map">
    <img class="base" alt="">
    <svg class="overlay"></svg>
    <div id="pins"></div>
    <div id="callout" role="dialog"><button class="directions" title="Directions" aria-label="Directions"><svg
        viewBox="0 0 24 24" width="22" height="22"><path d="M2 15v-4l3-1 3-5h8l3 5 3 1v4z" fill="#fff"/><circle
        cx="7" cy="16" r="2.5" fill="#fff" stroke="#1a73e8" stroke-width="1.5"/><circle cx="17" cy="16"
        r="2.5" fill="#fff" stroke="#1a73e8" stroke-width="1.5"/></svg></button>
      <div class="text"><div class="title"></div><div class="subtitle"></div><div class="coordinate"></div></div>
      <button class="details" title="Details">i</button></div>
    <div id="zoom"><button id="zoom-in" title="Zoom in">+</button><button id="zoom-out"
        title="Zoom out">−</button></div>
    <div id="hint"></div>
  </div>
  <aside><ul id="places"></ul><ul id="steps" hidden></ul></aside>
</main>
<div id="editor"><form>
  <strong>Details</strong>
  <label>Title <input name="title" autocomplete="off"></label>
  <label>Subtitle <input name="subtitle" autocomplete="off"></label>
  <label>Coordinate <input name="coordinate" readonly></label>
  <div class="message" id="editor-message"></div>
  <div class="buttons"><button type="button" id="cancel">Cancel</button><button type="submit"
      id="save">Save</button></div>
</form></div>
<script>
"use strict";

// Web Mercator on 256-point tiles, as the server's pictures.
const Mercator = {
  x: (lon, z) => (lon + 180) / 360 * 256 * 2 ** z,
  y: (lat, z) => { const s = Math.sin(Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI / 180);
                    return (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * 256 * 2 ** z; },
  lon: (x, z) => x / (256 * 2 ** z) * 360 - 180,
  lat: (y, z) => { const n = Math.PI * (1 - 2 * y / (256 * 2 ** z)); return Math.atan(Math.sinh(n)) * 180 / Math.PI; },
};

function element(tag, attributes = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// The map: the server's picture, places (pins and clusters) over it, a route, a callout.
// Knows nothing of the list: it reports what the user does to its delegate.
class MapView {
  constructor(root, delegate) {
    this.root = root; this.delegate = delegate;
    this.image = root.querySelector("img.base"); this.overlay = root.querySelector("svg.overlay");
    this.pinLayer = root.querySelector("#pins"); this.callout = root.querySelector("#callout");
    this.center = { lat: 0, lon: 0 }; this.zoom = 2; this.selected = null; this.places = new Map();
    this.route = null; this.highlighted = -1; this.dragged = false;
    this.callout.querySelector(".directions").addEventListener("click", e => {
      e.stopPropagation();
      this.delegate.mapWantsDirections(this.selected);
    });
    this.callout.querySelector(".details").addEventListener("click", e => {
      e.stopPropagation();
      this.delegate.mapWantsDetails(this.selected);
    });
    root.querySelector("#zoom-in").addEventListener("click", e => {
      e.stopPropagation();
      this.setView(this.center, Math.min(18, this.zoom + 1));
    });
    root.querySelector("#zoom-out").addEventListener("click", e => {
      e.stopPropagation();
      this.setView(this.center, Math.max(1, this.zoom - 1));
    });
    root.addEventListener("wheel", e => {
      e.preventDefault();
      this.setView(this.center, Math.max(1, Math.min(18, this.zoom + (e.deltaY < 0 ? 1 : -1))));
    }, { passive: false });
    let start = null;
    root.addEventListener("pointerdown", e => {
      if (e.target.closest("button, #callout")) return;
      start = { x: e.clientX, y: e.clientY, center: this.center };
      this.dragged = false;
      root.setPointerCapture(e.pointerId);
    });
    root.addEventListener("pointermove", e => {
      if (!start) return;
      const dx = e.clientX - start.x, dy = e.clientY - start.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) { this.dragged = true; root.classList.add("dragging"); }
      if (this.dragged) { this.image.style.transform = `translate(${dx}px, ${dy}px)`; }
    });
    root.addEventListener("pointerup", e => {
      if (!start) return;
      const dx = e.clientX - start.x, dy = e.clientY - start.y, from = start.center; start = null;
      root.classList.remove("dragging");
      if (this.dragged) {
        const x = Mercator.x(from.lon, this.zoom) - dx, y = Mercator.y(from.lat, this.zoom) - dy;
        this.setView({ lat: Mercator.lat(y, this.zoom), lon: Mercator.lon(x, this.zoom) }, this.zoom);
      } else if (!e.target.closest(".pin, .cluster")) {
        const box = root.getBoundingClientRect();
        this.delegate.mapClicked(this.unproject(e.clientX - box.left, e.clientY - box.top));
      }
    });
    new ResizeObserver(() => this.refresh()).observe(root);
  }
  get size() {
    return { w: Math.max(16, Math.round(this.root.clientWidth)), h: Math.max(16, Math.round(this.root.clientHeight)) };
  }
  project(lat, lon) {
    const { w, h } = this.size;
    return { x: Mercator.x(lon, this.zoom) - Mercator.x(this.center.lon, this.zoom) + w / 2,
             y: Mercator.y(lat, this.zoom) - Mercator.y(this.center.lat, this.zoom) + h / 2 };
  }
  unproject(px, py) {
    const { w, h } = this.size;
    return { lat: Mercator.lat(Mercator.y(this.center.lat, this.zoom) + py - h / 2, this.zoom),
             lon: Mercator.lon(Mercator.x(this.center.lon, this.zoom) + px - w / 2, this.zoom) };
  }
  setPlaces(places) { this.places = places; this.refresh(); }
  setView(center, zoom) { this.center = center; this.zoom = zoom; this.refresh(); }
  refresh() {
    if (!this.root.clientWidth) return;
    const { w, h } = this.size, z = this.zoom;
    const src = `/render?lat=${this.center.lat.toFixed(6)}&lon=${this.center.lon.toFixed(6)}` +
      `&zoom=${z}&width=${w}&height=${h}`;
    if (this.image.dataset.src !== src) {
      const next = new Image();
      next.onload = () => { this.image.src = src; this.image.dataset.src = src; this.image.style.transform = ""; };
      next.src = src;
    }
    this.overlay.setAttribute("width", w); this.overlay.setAttribute("height", h);
    const nw = this.unproject(0, 0), se = this.unproject(w, h);
    const box = [Math.max(-180, nw.lon), Math.max(-85, se.lat), Math.min(180, se.lon), Math.min(85, nw.lat)]
      .map(v => v.toFixed(6));
    const token = (this.token = (this.token || 0) + 1);
    fetch(`/clusters?west=${box[0]}&south=${box[1]}&east=${box[2]}&north=${box[3]}&zoom=${Math.floor(z)}`)
      .then(r => r.json()).then(data => { if (token === this.token) this.drawPins(data.items || []); });
    this.drawRoute(); this.placeCallout();
  }
  drawPins(items) {
    this.pinLayer.replaceChildren();
    for (const item of items) {
      const p = this.project(item.lat, item.lon);
      if (item.type === "cluster") {
        const b = element("button", { class: "cluster", "data-count": item.count, title: `${item.count} places` },
          String(item.count));
        b.style.left = `${p.x}px`; b.style.top = `${p.y}px`;
        b.addEventListener("click", e => {
          e.stopPropagation();
          this.setView({ lat: item.lat, lon: item.lon }, Math.min(18, item.expansion_zoom));
        });
        this.pinLayer.append(b);
      } else if (item.id !== undefined && item.id !== this.selected) {
        this.pinLayer.append(this.pin(item.id, p, false));
      }
    }
    const chosen = this.places.get(this.selected);
    if (chosen) this.pinLayer.append(this.pin(this.selected, this.project(chosen.lat, chosen.lon), true));
  }
  pin(id, p, selected) {
    const title = (this.places.get(id) || {}).title || id;
    const b = element("button", { class: selected ? "pin selected" : "pin", "data-id": id, title });
    b.innerHTML = '<svg viewBox="0 0 24 32"><path d="M12 32C9 22 0 18 0 11a12 12 0 0 1 24 0c0 7-9 11-12 21z"' +
      ' fill="#ea4335" stroke="#fff"/><circle cx="12" cy="11" r="4.5" fill="#fff"/></svg>';
    b.style.left = `${p.x}px`; b.style.top = `${p.y}px`;
    b.addEventListener("click", e => { e.stopPropagation(); this.delegate.mapSelected(id); });
    return b;
  }
  // Shows a place selected (its pin, its callout); `pan` brings it into view.
  select(id, pan) {
    this.selected = id;
    const place = this.places.get(id);
    if (place && pan) { this.setView({ lat: place.lat, lon: place.lon }, Math.max(this.zoom, 15));
      } else { this.refresh(); }
  }
  placeCallout() {
    const place = this.places.get(this.selected);
    if (!place) { this.callout.classList.remove("open"); return; }
    const p = this.project(place.lat, place.lon);
    this.callout.querySelector(".title").textContent = place.title || "";
    this.callout.querySelector(".subtitle").textContent = place.subtitle || "";
    this.callout.querySelector(".coordinate").textContent = `${place.lat.toFixed(6)}, ${place.lon.toFixed(6)}`;
    this.callout.style.left = `${p.x}px`; this.callout.style.top = `${p.y}px`;
    this.callout.classList.add("open");
  }
  showRoute(route) { this.route = route; this.highlighted = -1; this.drawRoute(); }
  highlightStep(i) { this.highlighted = i; this.drawRoute(); }
  drawRoute() {
    this.overlay.replaceChildren();
    if (!this.route) return;
    const ns = "http://www.w3.org/2000/svg";
    const d = this.route.geometry.coordinates.map(([lon, lat], i) => {
      const p = this.project(lat, lon);
      return `${i ? "L" : "M"}${p.x.toFixed(1)} ${p.y.toFixed(1)}`;
    }).join("");
    for (const [colour, width, id] of [["#ffffff", 10, "route-casing"], ["#1a73e8", 6, "route-line"]]) {
      const path = document.createElementNS(ns, "path");
      const attributes = { d, id, fill: "none", stroke: colour, "stroke-width": width,
                           "stroke-linecap": "round", "stroke-linejoin": "round" };
      for (const [k, v] of Object.entries(attributes)) path.setAttribute(k, v);
      this.overlay.append(path);
    }
    this.route.steps.forEach((step, i) => {
      const [lon, lat] = step.maneuver.location, p = this.project(lat, lon);
      const c = document.createElementNS(ns, "circle");
      const on = i === this.highlighted;
      const attributes = { cx: p.x, cy: p.y, r: on ? 9 : 5, class: on ? "maneuver highlighted" : "maneuver",
                           "data-step": i, fill: on ? "#fbbc04" : "#fff", stroke: "#174ea6", "stroke-width": 2 };
      for (const [k, v] of Object.entries(attributes)) c.setAttribute(k, v);
      c.style.pointerEvents = "auto"; c.style.cursor = "pointer";
      c.addEventListener("click", e => { e.stopPropagation(); this.delegate.mapSelectedStep(i); });
      this.overlay.append(c);
    });
  }
  hint(text) { const h = this.root.querySelector("#hint"); h.textContent = text || "";
    h.style.display = text ? "block" : "none"; }
}

// The list of places (and, with a route, its steps). Knows nothing of the map.
class PlaceList {
  constructor(places, steps, delegate) { this.list = places; this.stepList = steps; this.delegate = delegate;
    this.selected = null; }
  setPlaces(places) {
    this.list.replaceChildren();
    for (const [id, place] of places) {
      const li = element("li", { "data-id": id });
      li.append(element("div", { class: "title" }, place.title || id),
                element("div", { class: "subtitle" }, place.subtitle || ""));
      li.addEventListener("click", () => this.delegate.listSelected(id));
      this.list.append(li);
    }
    this.select(this.selected);
  }
  select(id) {
    this.selected = id;
    for (const li of this.list.children) li.classList.toggle("selected", li.dataset.id === id);
    const row = [...this.list.children].find(li => li.dataset.id === id);
    if (row) row.scrollIntoView({ block: "nearest" });
  }
  // A route's rows (one per instruction, as the command line tells it) in place of the places;
  // the back button returns to them.
  showSteps(route) {
    this.stepList.replaceChildren();
    this.list.hidden = !!route;
    this.stepList.hidden = !route;
    if (!route) return;
    const back = element("button", { class: "back", title: "Back to the places" }, "← Places");
    back.addEventListener("click", () => this.delegate.routeClosed());
    const summary = element("li", { class: "summary" });
    summary.append(back, element("span", {}, route.figures));
    this.stepList.append(summary);
    route.steps.forEach((step, i) => {
      const li = element("li", { "data-step": i }, step.instruction);
      if (step.maneuver.type !== "arrive") {
        li.append(element("div", { class: "figures" }, step.figures));
      }
      li.addEventListener("click", () => this.delegate.listSelectedStep(i));
      this.stepList.append(li);
    });
  }
  highlightStep(i) {
    for (const li of this.stepList.children) li.classList.toggle("selected", li.dataset.step === String(i));
    const row = [...this.stepList.children].find(li => li.dataset.step === String(i));
    if (row) row.scrollIntoView({ block: "nearest" });
  }
}

// The edit token, from the link waymark serve printed (#token=…): kept for this tab's session and
// taken out of the address bar (so it is not bookmarked or shared with the page's address).
const editToken = (() => {
  const found = location.hash.match(/(?:^#|&)token=([^&]+)/);
  if (found) {
    sessionStorage.setItem("waymark-edit-token", decodeURIComponent(found[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("waymark-edit-token");
})();

// The details editor: title and subtitle editable, the coordinate read-only; Save or Cancel.
class DetailsEditor {
  constructor(root, delegate) {
    this.root = root; this.form = root.querySelector("form"); this.delegate = delegate;
    this.message = root.querySelector("#editor-message");
    [this.title, this.subtitle, this.coordinate] = ["title", "subtitle", "coordinate"]
      .map(n => this.form.querySelector(`input[name=${n}]`));
    root.querySelector("#cancel").addEventListener("click", () => this.close());
    this.form.addEventListener("submit", e => { e.preventDefault(); this.save(); });
  }
  open(id, place, version) {
    this.id = id; this.version = version;
    const readOnly = this.delegate.readOnly;
    this.title.readOnly = this.subtitle.readOnly = readOnly;
    this.root.querySelector("#save").hidden = readOnly;
    this.message.textContent = readOnly ? "This viewer is read-only." : "";
    this.title.value = place.title || ""; this.subtitle.value = place.subtitle || "";
    this.coordinate.value = `${place.lat.toFixed(6)}, ${place.lon.toFixed(6)}`;
    this.root.classList.add("open"); this.title.focus();
  }
  close() { this.root.classList.remove("open"); }
  async save() {
    const headers = { "Content-Type": "application/json", "If-Match": `"${this.version}"` };
    if (editToken) headers.Authorization = `Bearer ${editToken}`;
    const response = await fetch(`/pois/${encodeURIComponent(this.id)}`, {
      method: "PUT", headers, body: JSON.stringify({ title: this.title.value, subtitle: this.subtitle.value }) });
    const body = await response.json().catch(() => ({}));
    if (response.status === 401) {
      this.message.textContent = "Editing needs the token: open the link waymark serve printed. Nothing was saved.";
      return;
    }
    if (response.status === 412) {
      this.message.textContent =
        "This place was changed elsewhere since the page read it; nothing was saved. Reload to see the latest.";
      return;
    }
    if (!response.ok) { this.message.textContent = body.message || `Not saved (${response.status}).`; return; }
    this.close(); this.delegate.editorSaved(body.version);
  }
}

// The coordinator: owns the places and the selection, and keeps map and list in step.
const app = {
  places: new Map(), version: null, selected: null, previous: null, route: null, choosingStart: false,
  async load() {
    const response = await fetch("/pois");
    this.version = (response.headers.get("ETag") || "").replace(/"/g, "");
    this.readOnly = response.headers.get("Waymark-Editing") === "read-only";
    const collection = await response.json();
    this.places = new Map();
    for (const f of collection.features || []) {
      if (f.id === undefined || !f.geometry || f.geometry.type !== "Point") continue;
      const [lon, lat] = f.geometry.coordinates, p = f.properties || {};
      this.places.set(String(f.id), { lat, lon, title: p.title || p.name || "", subtitle: p.subtitle || "" });
    }
    this.map.setPlaces(this.places); this.list.setPlaces(this.places);
    document.getElementById("status").textContent = `${this.places.size} places`;
  },
  async fit() {
    const { w, h } = this.map.size;
    const fit = await (await fetch(`/fit?width=${Math.max(64, w)}&height=${Math.max(64, h)}`)).json();
    this.map.setView({ lat: fit.center[1], lon: fit.center[0] }, Math.round(fit.zoom * 100) / 100);
  },
  select(id, pan) {
    if (id !== this.selected) this.previous = this.selected;
    this.selected = id; this.map.select(id, pan); this.list.select(id);
  },
  mapSelected(id) { this.select(id, false); },
  listSelected(id) { this.select(id, true); this.showTab("map"); },
  mapClicked(point) {
    if (!this.choosingStart) return;
    this.choosingStart = false; this.map.hint(""); this.directions(point, this.places.get(this.selected));
  },
  mapWantsDirections(id) {
    const from = this.places.get(this.previous);
    if (from) { this.directions(from, this.places.get(id)); return; }
    this.choosingStart = true; this.map.hint("Click the map where the route should start");
  },
  // The server's maps (one per profile): a switch when there is more than one.
  mode: "driving",
  async loadModes() {
    const health = await (await fetch("/health")).json();
    const known = { car: ["driving", "Drive"], bicycle: ["cycling", "Cycle"], foot: ["walking", "Walk"] };
    const modes = (health.profiles || []).filter(p => known[p]).map(p => known[p]);
    const select = document.getElementById("mode");
    if (modes.length) this.mode = modes[0][0];
    select.innerHTML = modes.map(([value, label]) => `<option value="${value}">${label}</option>`).join("");
    select.hidden = modes.length < 2;
    select.addEventListener("change", () => {
      this.mode = select.value;
      if (this.ends) this.directions(...this.ends);
    });
  },
  async directions(from, to) {
    this.ends = [from, to];
    // (Waymark's directions service: the route's rows as the command line tells them.)
    const url = `/directions/v1/${this.mode}/${from.lon},${from.lat};${to.lon},${to.lat}`;
    const answer = await (await fetch(url)).json();
    if (answer.code !== "Ok") { document.getElementById("status").textContent = answer.message || answer.code; return; }
    const route = answer.routes[0];
    this.route = route;
    this.map.showRoute(this.route); this.list.showSteps(this.route);
    // The whole route in view, as showAnnotations would show it: the server fits its corners.
    const xs = route.geometry.coordinates.map(c => c[0]), ys = route.geometry.coordinates.map(c => c[1]);
    const { w, h } = this.map.size;
    const corners = `${Math.min(...xs)},${Math.min(...ys)};${Math.max(...xs)},${Math.max(...ys)}`;
    const fit = await (await fetch(`/fit?width=${Math.max(64, w)}&height=${Math.max(64, h)}&points=${corners}`)).json();
    if (fit.center) this.map.setView({ lat: fit.center[1], lon: fit.center[0] }, Math.round(fit.zoom * 100) / 100);
    document.getElementById("status").textContent =
      `Route: ${(route.distance / 1000).toFixed(1)} km, ${Math.max(1, Math.round(route.duration / 60))} min`;
  },
  mapSelectedStep(i) { this.map.highlightStep(i); this.list.highlightStep(i); },
  routeClosed() {
    this.route = null; this.ends = null;
    this.map.showRoute(null); this.list.showSteps(null);
    document.getElementById("status").textContent = "";
  },
  listSelectedStep(i) {
    const [lon, lat] = this.route.steps[i].maneuver.location;
    this.map.highlightStep(i); this.list.highlightStep(i); this.map.setView({ lat, lon }, Math.max(this.map.zoom, 16));
      this.showTab("map");
  },
  mapWantsDetails(id) { this.editor.open(id, this.places.get(id), this.version); },
  async editorSaved(version) { await this.load(); this.version = version || this.version;
    this.map.select(this.selected, false); },
  showTab(which) {
    document.querySelector("main").className = which === "list" ? "show-list" : "show-map";
    document.getElementById("tab-map").classList.toggle("active", which !== "list");
    document.getElementById("tab-list").classList.toggle("active", which === "list");
    if (which !== "list") this.map.refresh();
  },
};
app.map = new MapView(document.getElementById("map"), app);
app.list = new PlaceList(document.getElementById("places"), document.getElementById("steps"), app);
app.editor = new DetailsEditor(document.getElementById("editor"), app);
document.getElementById("tab-map").addEventListener("click", () => app.showTab("map"));
document.getElementById("tab-list").addEventListener("click", () => app.showTab("list"));
app.loadModes().catch(() => {});
app.load().then(() => app.fit()).catch(error => {
  document.getElementById("status").textContent = `Could not load: ${error}`;
});
</script>
</body>
</html>
"""#
}
