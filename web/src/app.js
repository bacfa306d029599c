/*
 * app.js - the agent's page: one tile per GPU (data-gpu="INDEX",
 * data-uuid="UUID") with its utilisation, memory, temperature, power,
 * clock, XIDs, health and memory forecast, a sparkline of the last ten
 * minutes (uPlot); a compact heat-map instead of tiles for many GPUs; the
 * alerts; history charts (query_range over 5 m to 30 d, drag to zoom, a
 * chosen set of GPUs, alerts, XIDs and throttling marked); one GPU in
 * detail. The view's state lives in the URL's hash (range, gpus, gpu,
 * refresh, view, node) so a view can be shared.
 *
 * Every request goes to the agent that served the page, unless the page
 * is opened with ?source=URL: then it reads a Prometheus (or any
 * Prometheus-compatible engine) holding many agents' data, one node at a
 * time (a node picker over the `instance` label) or all nodes as a heat-map.
 *
 * Views end now, unless they end in the past: at #end=SECONDS (a shared
 * view of an incident), or at the newest sample of a store that
 * `gpuwatch serve` serves (its banner's data-end), which is history that
 * stopped. A view that ends in the past is not refreshed.
 */
"use strict";
(function () {
	const FIELDS = {
		DCGM_FI_DEV_GPU_UTIL: "util",
		DCGM_FI_DEV_FB_USED: "fbUsed",
		DCGM_FI_DEV_FB_FREE: "fbFree",
		DCGM_FI_DEV_GPU_TEMP: "temp",
		DCGM_FI_DEV_POWER_USAGE: "power",
		DCGM_FI_DEV_POWER_LIMIT: "powerLimit",
		DCGM_FI_DEV_SM_CLOCK: "smClock",
		DCGM_FI_DEV_XID_ERRORS: "xid",
		gpuwatch_memory_time_to_full_seconds: "toFull",
	};
	const REFRESH_MS = 2000;
	const SPARK_MS = 10000;
	const SPARK_RANGE_S = 600;
	const HEATMAP_FROM = 33; /* GPUs from which the overview is a heat-map */
	const tiles = new Map(); /* gpu index -> {el, rows, fill, spark, plot} */
	let health = new Map(); /* gpu index -> {status, incidents} from /api/v1/health */
	let gpusSeen = []; /* indexes of the GPUs the last refresh saw, sorted */

	/* ---- where the data comes from ------------------------------------------ */

	const source = (new URLSearchParams(location.search).get("source") || "").replace(/\/+$/, "");
	const fleet = source !== "";
	const stored = document.getElementById("stored"); /* gpuwatch serve: a store, no GPU sampled */
	const storedEnd = stored && stored.dataset.end ? Number(stored.dataset.end) / 1000 : null;

	/* The view's state: range=SECONDS&gpus=0,2&gpu=INDEX&refresh=SECONDS&view=heatmap&node=INSTANCE. */
	function hashParams() {
		return new URLSearchParams(location.hash.slice(1));
	}

	function setHash(key, value) {
		const p = hashParams();
		if (value === null || value === "")
			p.delete(key);
		else
			p.set(key, value);
		location.hash = p.toString();
	}

	/* The time (s) the views end at when it is not now: #end=, or the served store's newest sample; else null. */
	function fixedEnd() {
		const e = Number(hashParams().get("end"));
		if (hashParams().get("end") && isFinite(e) && e > 0)
			return e;
		return storedEnd;
	}

	function endTime() {
		const e = fixedEnd();
		return e === null ? Date.now() / 1000 : e;
	}

	/* Says where the views end when not now, with a way back to now (#end= only: a store's end is fixed). */
	function showEnd() {
		const box = document.getElementById("ended");
		const e = fixedEnd();
		box.hidden = e === null;
		if (e === null)
			return;
		box.dataset.end = String(e);
		document.getElementById("ended-at").textContent = new Date(e * 1000).toLocaleString();
		document.getElementById("ended-live").hidden = !hashParams().get("end");
	}

	/* An instant query's parameters: at the view's end when that is not now. */
	function instant(query) {
		const e = fixedEnd();
		return e === null ? { query } : { query, time: e.toFixed(3) };
	}

	function node() {
		return fleet ? hashParams().get("node") || "" : "";
	}

	function promStr(s) {
		return '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
	}

	/* The matchers every query of this view carries: the node in fleet mode, the chosen GPUs for charts. */
	function matchers(extra) {
		const m = [];
		const n = node();
		if (n && n !== "*")
			m.push("instance=" + promStr(n));
		if (extra)
			m.push(extra);
		return m;
	}

	function sel(metric, extra) {
		const m = matchers(extra);
		return metric + (m.length ? "{" + m.join(",") + "}" : "");
	}

	async function api(path, params) {
		const url = source + path + (params ? "?" + new URLSearchParams(params) : "");
		let r;
		try {
			r = await fetch(url, { headers: { Accept: "application/json" } });
		} catch (e) {
			throw new Error((fleet ? source : "the agent") + " is unreachable (" + url + ")");
		}
		let body = null;
		try {
			body = await r.json();
		} catch (e) {
			throw new Error(path + ": HTTP " + r.status + " without a JSON answer");
		}
		if (!r.ok || body.status !== "success")
			throw new Error(path + ": " + (body.error || "HTTP " + r.status));
		return body.data;
	}

	function showError(msg) {
		const el = document.getElementById("error");
		el.textContent = msg || "";
		el.hidden = !msg;
	}

	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function fmt(v, digits, unit) {
		if (v === undefined || !isFinite(v))
			return "–";
		return v.toFixed(digits) + (unit ? " " + unit : "");
	}

	function fmtDuration(s) {
		if (!isFinite(s))
			return "–";
		if (s < 120)
			return Math.round(s) + " s";
		if (s < 7200)
			return Math.round(s / 60) + " min";
		if (s < 172800)
			return (s / 3600).toFixed(1) + " h";
		return (s / 86400).toFixed(1) + " d";
	}

	function byIndex(a, b) {
		return Number(a) - Number(b);
	}

	/* ---- overview: tiles, or a heat-map for many GPUs --------------------------- */

	function heatmapView() {
		const v = hashParams().get("view");
		if (v === "tiles")
			return false;
		return v === "heatmap" || node() === "*" || gpusSeen.length >= HEATMAP_FROM;
	}

	function tileFor(gpu, labels) {
		let t = tiles.get(gpu);
		if (t)
			return t;
		const root = el("article", "tile");
		root.dataset.gpu = gpu;
		root.dataset.uuid = labels.UUID || "";
		const h = el("h3");
		const badge = el("span", "health");
		h.append(el("span", "", "GPU " + gpu), badge, el("small", "", labels.modelName || ""));
		const dl = el("dl");
		const rows = {};
		for (const [key, name] of [["util", "utilisation"], ["mem", "memory"], ["toFull", "memory full in"],
			["temp", "temperature"], ["power", "power"], ["smClock", "SM clock"], ["xid", "last XID"]]) {
			const dt = el("dt", "", name);
			rows[key] = el("dd");
			rows[key].dataset.field = key;
			if (key === "toFull")
				dt.hidden = rows[key].hidden = true;
			rows[key].dt = dt;
			dl.append(dt, rows[key]);
		}
		const bar = el("div", "bar");
		const fill = el("span");
		bar.append(fill);
		const spark = el("div", "spark");
		root.append(h, dl, bar, spark);
		t = { el: root, rows, fill, spark, plot: null, badge };
		tiles.set(gpu, t);
		const main = document.getElementById("tiles");
		const after = [...main.children].find((c) => Number(c.dataset.gpu) > Number(gpu));
		main.insertBefore(root, after || null);
		return t;
	}

	function setHealth(t, gpu) {
		const h = health.get(gpu);
		t.badge.textContent = h ? h.status : "";
		t.badge.className = "health" + (h ? " " + h.status : "");
		if (h)
			t.el.dataset.health = h.status;
		else
			delete t.el.dataset.health;
		t.badge.title = h && h.incidents.length ? h.incidents.map((i) => i.system + ": " + i.message).join("\n") : "";
	}

	/* A cell per GPU (per node and GPU for all nodes), coloured by utilisation. */
	function drawHeatmap(rows) {
		const box = document.getElementById("heatmap");
		const byNode = new Map();
		for (const f of rows) {
			const n = f.labels.instance || "";
			if (!byNode.has(n))
				byNode.set(n, []);
			byNode.get(n).push(f);
		}
		const out = [];
		for (const [n, fs] of [...byNode].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
			const row = el("div", "hm-row");
			if (byNode.size > 1 || node() === "*")
				row.append(el("span", "hm-node", n));
			for (const f of fs.sort((a, b) => byIndex(a.gpu, b.gpu))) {
				const c = el("button", "cell");
				c.type = "button";
				c.dataset.gpu = f.gpu;
				c.dataset.uuid = f.labels.UUID || "";
				if (n)
					c.dataset.instance = n;
				const u = isFinite(f.util) ? Math.max(0, Math.min(100, f.util)) : NaN;
				c.style.setProperty("--u", isFinite(u) ? String(u / 100) : "0");
				c.classList.toggle("nodata", !isFinite(u));
				const h = health.get(f.gpu);
				if (h && h.status !== "pass" && !n)
					c.dataset.health = h.status;
				c.textContent = f.gpu;
				c.title = (n ? n + " " : "") + "GPU " + f.gpu + ": " + fmt(f.util, 0, "%") + " utilisation, " +
					fmt(f.temp, 0, "°C") + ", " + fmt(f.power, 0, "W");
				row.append(c);
			}
			out.push(row);
		}
		box.replaceChildren(...out);
		box.dataset.cells = String(rows.length);
	}

	async function refresh() {
		const names = Object.keys(FIELDS).join("|");
		const data = await api("/api/v1/query", instant(sel("", "__name__=~" + promStr(names))));
		const byGpu = new Map();
		for (const s of data.result) {
			const gpu = s.metric.gpu;
			if (gpu === undefined)
				continue;
			const key = (s.metric.instance || "") + "\0" + gpu;
			const f = byGpu.get(key) || { gpu, labels: s.metric };
			const name = FIELDS[s.metric.__name__];
			if (name === "xid") /* one series per code seen; a code beats "0" (none) */
				f.xid = Math.max(f.xid || 0, Number(s.value[1]));
			else if (name && f[name] === undefined)
				f[name] = Number(s.value[1]);
			byGpu.set(key, f);
		}
		const rows = [...byGpu.values()];
		gpusSeen = [...new Set(rows.map((f) => f.gpu))].sort(byIndex);
		const heat = heatmapView();
		document.getElementById("tiles").hidden = heat;
		document.getElementById("heatmap").hidden = !heat;
		document.getElementById("view").textContent = heat ? "show tiles" : "show heat-map";
		if (heat) {
			drawHeatmap(rows);
		} else {
			for (const f of rows) {
				const t = tileFor(f.gpu, f.labels);
				const total = (f.fbUsed || 0) + (f.fbFree || 0);
				t.rows.util.textContent = fmt(f.util, 0, "%");
				t.rows.mem.textContent = total ? fmt(f.fbUsed / 1024, 1) + " / " + fmt(total / 1024, 1, "GiB") : "–";
				t.rows.toFull.textContent = fmtDuration(f.toFull);
				t.rows.toFull.hidden = t.rows.toFull.dt.hidden = f.toFull === undefined;
				t.rows.toFull.classList.toggle("hot", f.toFull < 3600);
				t.rows.temp.textContent = fmt(f.temp, 0, "°C");
				t.rows.temp.classList.toggle("hot", f.temp >= 85);
				t.rows.power.textContent = fmt(f.power, 0) + (f.powerLimit ? " / " + fmt(f.powerLimit, 0) : "") + " W";
				t.rows.smClock.textContent = fmt(f.smClock, 0, "MHz");
				t.rows.xid.textContent = f.xid ? String(f.xid) : "none";
				t.fill.style.width = Math.max(0, Math.min(100, f.util || 0)) + "%";
				setHealth(t, f.gpu);
			}
		}
		drawPicker();
		const overview = document.getElementById(heat ? "heatmap" : "tiles");
		if (!overview.dataset.firstMs && rows.length)
			overview.dataset.firstMs = String(Math.round(performance.now()));
	}

	/* The agent's health verdicts (gpuwatch health's JSON); an agent without them leaves the badges empty. */
	async function refreshHealth() {
		if (fleet || fixedEnd() !== null) { /* the verdicts as they were then, from the history */
			const data = await api("/api/v1/query", instant(sel("gpuwatch_health_status")));
			const m = new Map();
			const names = ["pass", "warn", "fail"];
			for (const s of data.result) {
				const g = s.metric.gpu;
				const v = Number(s.value[1]);
				const h = m.get(g) || { status: "pass", incidents: [] };
				if (v > names.indexOf(h.status))
					h.status = names[Math.min(2, v)] || "fail";
				if (v > 0)
					h.incidents.push({ system: s.metric.system, severity: names[v] || "fail", message: "", since: "" });
				m.set(g, h);
			}
			health = m;
			return;
		}
		let r;
		try {
			r = await fetch("/api/v1/health", { headers: { Accept: "application/json" } });
		} catch (e) {
			return;
		}
		if (!r.ok)
			return;
		const body = await r.json();
		const gpus = (body.data && body.data.gpus) || body.gpus || [];
		health = new Map(gpus.map((g) => [String(g.index), { status: g.status, incidents: g.incidents || [] }]));
	}

	async function sparklines() {
		if (heatmapView())
			return;
		const end = endTime();
		const data = await api("/api/v1/query_range", {
			query: sel("DCGM_FI_DEV_GPU_UTIL"),
			start: (end - SPARK_RANGE_S).toFixed(3),
			end: end.toFixed(3),
			step: "5",
		});
		for (const s of data.result) {
			const t = tiles.get(s.metric.gpu);
			if (!t || typeof uPlot === "undefined")
				continue;
			const xs = s.values.map((p) => p[0]);
			const ys = s.values.map((p) => Number(p[1]));
			if (t.plot) {
				t.plot.setData([xs, ys]);
				continue;
			}
			t.plot = new uPlot({
				width: 230, height: 40, legend: { show: false }, cursor: { show: false },
				axes: [{ show: false }, { show: false }],
				scales: { x: { time: true }, y: { range: [0, 100] } },
				series: [{}, { stroke: getComputedStyle(document.body).getPropertyValue("--accent").trim() || "#1565c0", width: 1, points: { show: false } }],
			}, [xs, ys], t.spark);
		}
	}

	async function alerts() {
		const data = await api("/api/v1/alerts");
		const n = node();
		const list = document.getElementById("alert-list");
		const shown = data.alerts.filter((a) => !n || n === "*" || a.labels.instance === undefined || a.labels.instance === n);
		list.replaceChildren(...shown.map((a) => {
			const li = el("li", a.state, a.labels.alertname + (a.labels.gpu !== undefined ? " (GPU " + a.labels.gpu + ")" : "") +
				": " + a.state + (a.annotations.summary ? " – " + a.annotations.summary : ""));
			return li;
		}));
		document.getElementById("alerts").hidden = shown.length === 0;
	}

	/*
	 * The inference servers the agent scrapes (--scrape, docs/SCRAPE.md):
	 * each target with scrape_duration_seconds, whether it is up, and its
	 * requests and tokens a second over the last minute.
	 */
	const SCRAPED = "scrape_duration_seconds";
	const key = (m) => m.job + "\0" + m.instance;
	/*
	 * A second's increase of the scraped counters named by re, summed by target. One query
	 * a name: rate() over several names at once would give series the same labels.
	 */
	async function perSecond(q, re) {
		const names = (await q("group by (__name__) ({__name__=~" + promStr(re) + "} and on (job, instance) " + SCRAPED + ")"))
			.map((s) => s.metric.__name__).slice(0, 8);
		const sums = new Map();
		for (const rows of await Promise.all(names.map((n) => q("sum by (job, instance) (rate(" + n + "[1m]))"))))
			for (const s of rows)
				sums.set(key(s.metric), (sums.get(key(s.metric)) || 0) + Number(s.value[1]));
		return sums;
	}
	async function inference() {
		const q = (expr) => api("/api/v1/query", instant(expr)).then((d) => d.result);
		const [up, reqs, toks] = await Promise.all([q("up and on (job, instance) " + SCRAPED),
			perSecond(q, ".*request.*_total|nv_inference_request_success"), perSecond(q, ".*token.*_total")]);
		up.sort((a, b) => key(a.metric).localeCompare(key(b.metric)));
		document.querySelector("#inference tbody").replaceChildren(...up.map((s) => {
			const tr = el("tr");
			tr.dataset.job = s.metric.job;
			const isUp = s.value[1] === "1";
			tr.append(el("td", "", s.metric.job), el("td", "", s.metric.instance), el("td", isUp ? "" : "down", isUp ? "up" : "down"),
				el("td", "num", fmt(reqs.get(key(s.metric)), 1)), el("td", "num", fmt(toks.get(key(s.metric)), 0)));
			return tr;
		}));
		document.getElementById("inference").hidden = up.length === 0;
	}

	async function loop() {
		try {
			await refreshHealth();
		} catch (e) {
			/* no health watches: no badges */
		}
		try {
			await refresh();
			showError("");
		} catch (e) {
			showError(e.message);
		}
		try {
			if (fixedEnd() === null) /* alerts firing now; past ones are marked on the charts */
				await alerts();
			else
				document.getElementById("alerts").hidden = true;
		} catch (e) {
			/* without a history there is no rules API: the tiles still work */
		}
		try {
			await inference();
		} catch (e) {
			document.getElementById("inference").hidden = true; /* no history: nothing scraped */
		}
	}

	async function sparkLoop() {
		try {
			await sparklines();
		} catch (e) {
			/* the tiles' own errors are shown; a missing history only leaves the sparklines empty */
		}
	}

	/* ---- fleet mode: which node ------------------------------------------------ */

	async function nodes() {
		const box = document.getElementById("node-picker");
		if (!fleet)
			return;
		box.hidden = false;
		document.getElementById("host").textContent = "source: " + source;
		const values = (await api("/api/v1/label/instance/values")).slice().sort();
		const s = document.getElementById("node");
		const want = node();
		s.replaceChildren(el("option", "", "all nodes (heat-map)"), ...values.map((v) => {
			const o = el("option", "", v);
			o.value = v;
			return o;
		}));
		s.options[0].value = "*";
		if (!want && values.length) {
			setHash("node", values.length === 1 ? values[0] : "*");
			return;
		}
		s.value = want;
		s.dataset.nodes = String(values.length);
	}

	/* ---- history ---------------------------------------------------------- */

	const CHARTS = [
		{ id: "util", title: "Utilisation (%)", metric: "DCGM_FI_DEV_GPU_UTIL", range: [0, 100] },
		{ id: "mem", title: "Memory used (GiB)", metric: "DCGM_FI_DEV_FB_USED", scale: 1 / 1024 },
		{ id: "temp", title: "Temperature (°C)", metric: "DCGM_FI_DEV_GPU_TEMP" },
		{ id: "power", title: "Power (W)", metric: "DCGM_FI_DEV_POWER_USAGE" },
	];
	const COLORS = ["#1565c0", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#4e342e"];
	const MARK_COLORS = { alert: "rgba(198,40,40,.18)", throttle: "rgba(239,108,0,.16)", xid: "#c62828" };
	const REFRESH_CHOICES = ["0", "5", "30", "60", "300"];
	const charts = new Map(); /* id -> {box, plot, gpus} */
	let marks = []; /* {kind, gpu, from, to, text} in seconds */
	let historyTimer = null;

	function rangeSeconds() {
		const sel = document.getElementById("range");
		const v = hashParams().get("range") || sel.value;
		if ([...sel.options].some((o) => o.value === v))
			sel.value = v;
		return Number(sel.value);
	}

	/* The GPUs the charts show: #gpus=0,2, or every GPU. */
	function chosenGpus() {
		const v = hashParams().get("gpus");
		if (!v)
			return null;
		const set = v.split(",").filter((g) => /^\d+$/.test(g));
		return set.length ? set : null;
	}

	function gpuMatcher() {
		const set = chosenGpus();
		return set ? "gpu=~" + promStr(set.join("|")) : "";
	}

	function drawPicker() {
		const box = document.getElementById("gpu-picker");
		const chosen = chosenGpus();
		const have = [...box.querySelectorAll("input")].map((i) => i.value).join(",");
		if (have !== gpusSeen.join(",")) {
			box.replaceChildren(el("span", "", "GPUs"), ...gpusSeen.map((g) => {
				const l = el("label");
				const i = el("input");
				i.type = "checkbox";
				i.value = g;
				l.append(i, document.createTextNode(" " + g));
				return l;
			}));
		}
		for (const i of box.querySelectorAll("input"))
			i.checked = !chosen || chosen.includes(i.value);
		box.hidden = gpusSeen.length < 2;
	}

	/* Marks for the charts: uPlot draws them under the series, bands for spans and lines for instants. */
	function markHook(u) {
		const chosen = chosenGpus();
		const ctx = u.ctx;
		const top = u.bbox.top, height = u.bbox.height;
		ctx.save();
		for (const m of marks) {
			if (chosen && m.gpu !== undefined && !chosen.includes(m.gpu))
				continue;
			const x0 = u.valToPos(m.from, "x", true), x1 = u.valToPos(m.to, "x", true);
			if (x1 < u.bbox.left || x0 > u.bbox.left + u.bbox.width)
				continue;
			if (m.kind === "xid") {
				ctx.strokeStyle = MARK_COLORS.xid;
				ctx.lineWidth = 1;
				ctx.setLineDash([3, 3]);
				ctx.beginPath();
				ctx.moveTo(x0, top);
				ctx.lineTo(x0, top + height);
				ctx.stroke();
				ctx.setLineDash([]);
			} else {
				ctx.fillStyle = MARK_COLORS[m.kind];
				ctx.fillRect(x0, top, Math.max(2, x1 - x0), height);
			}
		}
		ctx.restore();
	}

	/* One chart: a series per GPU on a common time axis (query_range's steps; gaps as nulls). */
	function draw(def, data, start, end, step) {
		if (!charts.has(def.id)) /* the boxes in CHARTS' order, whichever answer comes first */
			for (const d of CHARTS) {
				const box = el("div", "chart");
				box.dataset.chart = d.id;
				for (const k of ["series", "points", "marks"]) /* in this order, whatever comes first */
					box.dataset[k] = "0";
				box.append(el("h3", "", d.title));
				document.getElementById("charts").append(box);
				charts.set(d.id, { box, plot: null, gpus: "" });
			}
		const c = charts.get(def.id);
		const xs = [];
		for (let t = start; t <= end + 1e-9; t += step)
			xs.push(Math.round(t * 1000) / 1000);
		const result = data.result.slice().sort((a, b) => (a.metric.instance || "").localeCompare(b.metric.instance || "") ||
			byIndex(a.metric.gpu, b.metric.gpu));
		const scale = def.scale || 1;
		const ys = result.map((s) => {
			const byT = new Map(s.values.map((p) => [Math.round(p[0] * 1000) / 1000, Number(p[1]) * scale]));
			return xs.map((t) => (byT.has(t) ? byT.get(t) : null));
		});
		const label = (s) => (node() === "*" ? (s.metric.instance || "") + " " : "") + "GPU " + s.metric.gpu;
		const gpus = result.map(label).join(",");
		c.box.dataset.series = String(result.length);
		c.box.dataset.points = String(xs.length);
		c.box.dataset.marks = String(marks.length);
		if (c.plot && c.gpus === gpus) {
			c.plot.setData([xs, ...ys]);
			return;
		}
		if (c.plot)
			c.plot.destroy();
		c.gpus = gpus;
		const width = Math.max(300, c.box.clientWidth - 12);
		c.plot = new uPlot({
			width, height: 180,
			cursor: { drag: { x: true, y: false, setScale: true } },
			scales: { x: { time: true }, y: def.range ? { range: def.range } : {} },
			series: [{}, ...result.map((s, i) => ({
				label: label(s), stroke: COLORS[i % COLORS.length], width: 1, spanGaps: false,
				points: { show: false },
			}))],
			hooks: {
				drawClear: [markHook],
				setSelect: [(u) => {
					if (u.select.width > 0)
						document.getElementById("reset-zoom").hidden = false;
				}],
			},
		}, [xs, ...ys], c.box);
	}

	/* Runs of steps where a series is present (and, with test, true), as [from, to] in seconds; runs apart
	 * by at most `join` steps are one (a power cap that lets go for a second is still one episode). */
	function runs(values, step, test, join) {
		const out = [];
		let cur = null;
		for (const [t, v] of values) {
			if (test && !test(Number(v)))
				continue;
			if (cur && t - cur[1] <= step * ((join || 1) + 0.5))
				cur[1] = t;
			else
				out.push((cur = [t, t]));
		}
		return out.map(([a, b]) => [a, b + step]);
	}

	/* The clock event reasons that lower clocks (nvidia-smi's names), by bit of the reason mask. */
	const THROTTLES = [[0x4, "power cap"], [0x8, "HW slowdown"], [0x10, "sync boost"], [0x20, "SW thermal slowdown"],
		[0x40, "HW thermal slowdown"], [0x80, "HW power brake"]];

	/* Alerts that fired, throttling (clock event reasons 0x04..0x80: power, thermal, slowdown, sync boost)
	 * and XIDs (a code's first in the range: repeats of the code leave no trace in the stored series). */
	async function events(start, end, step) {
		const range = { start, end, step };
		const [al, th, xid] = await Promise.all([
			api("/api/v1/query_range", { query: sel("ALERTS", 'alertstate="firing"'), ...range }).catch(() => ({ result: [] })),
			api("/api/v1/query_range", { query: sel("gpuwatch_clocks_event_reasons"), ...range }),
			api("/api/v1/query_range", { query: sel("DCGM_FI_DEV_XID_ERRORS", 'err_code!="0"'), ...range }),
		]);
		const out = [];
		for (const s of al.result)
			for (const [a, b] of runs(s.values, step))
				out.push({ kind: "alert", gpu: s.metric.gpu, from: a, to: b, text: s.metric.alertname });
		for (const s of th.result)
			for (const [bit, name] of THROTTLES)
				for (const [a, b] of runs(s.values, step, (v) => (v & bit) !== 0, 5))
					out.push({ kind: "throttle", gpu: s.metric.gpu, from: a, to: b, text: "clocks lowered: " + name });
		for (const s of xid.result) {
			/* the last XID's series (one per code, as dcgm-exporter labels it) begins with its code's first XID */
			const t = s.values.length ? s.values[0][0] : start;
			if (t > start + step)
				out.push({ kind: "xid", gpu: s.metric.gpu, from: t, to: t,
					text: "XID " + s.metric.err_code + (s.metric.err_msg ? " (" + s.metric.err_msg + ")" : "") });
		}
		return out.sort((a, b) => a.from - b.from);
	}

	function drawEvents() {
		const chosen = chosenGpus();
		const list = document.getElementById("events");
		const shown = marks.filter((m) => !chosen || m.gpu === undefined || chosen.includes(m.gpu));
		list.replaceChildren(...shown.slice(-50).reverse().map((m) => {
			const li = el("li", m.kind);
			li.dataset.kind = m.kind;
			if (m.gpu !== undefined)
				li.dataset.gpu = m.gpu;
			const when = new Date(m.from * 1000).toLocaleString();
			const span = m.to > m.from ? " for " + fmtDuration(m.to - m.from) : "";
			li.textContent = when + " · " + (m.gpu !== undefined ? "GPU " + m.gpu + " · " : "") + m.text + span;
			return li;
		}));
		document.getElementById("events-box").hidden = shown.length === 0;
		document.getElementById("events-box").dataset.events = String(shown.length);
	}

	async function history() {
		const range = rangeSeconds();
		const step = Math.max(1, Math.ceil(range / 300));
		const end = Math.floor(endTime()); /* the newest data, not the last whole step */
		const start = end - range;
		const section = document.getElementById("history");
		section.dataset.range = String(range);
		section.dataset.step = String(step);
		/* the charts' and the events' queries all at once: the charts are drawn as they come, the marks
		 * added when theirs do */
		const marksDone = events(start, end, step).catch(() => []).then((m) => {
			marks = m; /* an engine without these series still draws the charts */
			for (const c of charts.values()) {
				if (c.plot)
					c.plot.redraw(false);
				c.box.dataset.marks = String(marks.length);
			}
		});
		await Promise.all(CHARTS.map(async (def) => {
			const data = await api("/api/v1/query_range", { query: sel(def.metric, gpuMatcher()), start, end, step });
			draw(def, data, start, end, step);
		}));
		if (!section.dataset.firstMs) /* how long after the page was asked for the charts were first drawn */
			section.dataset.firstMs = String(Math.round(performance.now()));
		await marksDone;
		drawEvents();
		section.dataset.drawn = String(Date.now());
	}

	async function historyLoop() {
		try {
			await history();
		} catch (e) {
			showError(e.message);
		}
	}

	function scheduleHistory() {
		const v = hashParams().get("refresh") || "30";
		const s = document.getElementById("refresh");
		s.value = REFRESH_CHOICES.includes(v) ? v : "30";
		if (historyTimer)
			clearInterval(historyTimer);
		historyTimer = Number(s.value) > 0 && fixedEnd() === null ? setInterval(historyLoop, Number(s.value) * 1000) : null;
	}

	/* ---- one GPU in detail: its health, every series it has, and its processes ---- */

	const COMMON = new Set(["__name__", "gpu", "UUID", "uuid", "device", "modelName", "model", "Hostname",
		"pci_bus_id", "DCGM_FI_DRIVER_VERSION", "instance", "job"]);

	function fmtValue(v) {
		const n = Number(v);
		if (!isFinite(n))
			return v;
		return Math.abs(n) >= 1e6 || (n !== 0 && Math.abs(n) < 1e-3) ? n.toExponential(3) : String(Math.round(n * 1000) / 1000);
	}

	function labelsOf(text) {
		const labels = {};
		for (const l of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
			labels[l[1]] = l[2].replace(/\\(.)/g, (x, c) => (c === "n" ? "\n" : c));
		return labels;
	}

	/* The process lines of the exposition for one GPU: pid -> labels and values (the agent's history keeps no processes). */
	function processes(text, gpu) {
		const byPid = new Map();
		const re = /^(gpuwatch_process_(?:memory_used_bytes|sm_utilization_ratio))\{(.*)\} (\S+)$/;
		for (const line of text.split("\n")) {
			const m = re.exec(line);
			if (!m)
				continue;
			const labels = labelsOf(m[2]);
			if (labels.gpu !== gpu)
				continue;
			const p = byPid.get(labels.pid) || { labels };
			p[m[1].endsWith("bytes") ? "mem" : "sm"] = Number(m[3]);
			byPid.set(labels.pid, p);
		}
		return [...byPid.values()].sort((a, b) => byIndex(a.labels.pid, b.labels.pid));
	}

	/* In fleet mode the processes come from the engine, which stores what it scraped. */
	async function fleetProcesses(gpu) {
		const data = await api("/api/v1/query", instant(sel("", "__name__=~" +
			promStr("gpuwatch_process_memory_used_bytes|gpuwatch_process_sm_utilization_ratio") + ",gpu=" + promStr(gpu))));
		const byPid = new Map();
		for (const s of data.result) {
			const p = byPid.get(s.metric.pid) || { labels: s.metric };
			p[s.metric.__name__.endsWith("bytes") ? "mem" : "sm"] = Number(s.value[1]);
			byPid.set(s.metric.pid, p);
		}
		return [...byPid.values()].sort((a, b) => byIndex(a.labels.pid, b.labels.pid));
	}

	function drawDetailHealth(gpu) {
		const h = health.get(gpu);
		const box = document.getElementById("detail-health");
		box.hidden = !h;
		if (!h)
			return;
		box.dataset.status = h.status;
		document.getElementById("detail-health-status").textContent = h.status;
		document.getElementById("detail-health-status").className = "health " + h.status;
		document.querySelector("#incidents tbody").replaceChildren(...h.incidents.map((i) => {
			const tr = el("tr", i.severity);
			tr.dataset.system = i.system;
			tr.append(el("td", "", i.system), el("td", "", i.severity), el("td", "", i.message), el("td", "", i.since || ""));
			return tr;
		}));
		document.getElementById("incidents").hidden = h.incidents.length === 0;
	}

	async function detail() {
		const gpu = hashParams().get("gpu");
		const section = document.getElementById("detail");
		for (const t of tiles.values())
			t.el.classList.toggle("selected", t.el.dataset.gpu === gpu);
		if (gpu === null || !/^\d+$/.test(gpu) || node() === "*") {
			section.hidden = true;
			return;
		}
		section.hidden = false;
		section.dataset.gpu = gpu;
		document.getElementById("detail-title").textContent = (node() ? node() + " " : "") + "GPU " + gpu;
		const [data, procs] = await Promise.all([
			api("/api/v1/query", instant(sel("", "gpu=" + promStr(gpu)))),
			fleet ? fleetProcesses(gpu) : fixedEnd() !== null ? Promise.resolve(null) : fetch("/metrics").then((r) => (r.ok ? r.text() : "")).then((t) => processes(t, gpu)),
		]);
		drawDetailHealth(gpu);
		const rows = data.result.map((s) => {
			const extra = Object.entries(s.metric).filter(([k]) => !COMMON.has(k)).map(([k, v]) => k + '="' + v + '"');
			return [s.metric.__name__ + (extra.length ? "{" + extra.join(",") + "}" : ""), s.value[1]];
		}).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
		document.querySelector("#fields tbody").replaceChildren(...rows.map(([name, v]) => {
			const tr = el("tr");
			tr.append(el("td", "", name), el("td", "num", fmtValue(v)));
			return tr;
		}));
		section.dataset.fields = String(rows.length);
		if (procs === null) { /* the agent's history keeps no process lists (a Prometheus scraping it does) */
			const tr = el("tr");
			const td = el("td", "muted", "Process lists are not kept in the agent's history: the live view shows them.");
			td.colSpan = 6;
			tr.append(td);
			document.querySelector("#procs tbody").replaceChildren(tr);
			section.dataset.processes = "none";
			return;
		}
		document.querySelector("#procs tbody").replaceChildren(...procs.map((p) => {
			const tr = el("tr");
			tr.dataset.pid = p.labels.pid;
			const who = ["container", "pod", "namespace", "slurm_job", "hpc_job", "user"].filter((k) => p.labels[k])
				.map((k) => k + " " + p.labels[k]).join(", ");
			tr.append(el("td", "num", p.labels.pid), el("td", "", p.labels.process || ""), el("td", "", p.labels.type || ""),
				el("td", "num", p.mem !== undefined ? fmt(p.mem / 1048576, 0, "MiB") : "–"),
				el("td", "num", p.sm !== undefined ? fmt(p.sm * 100, 0, "%") : "–"), el("td", "", who));
			return tr;
		}));
		section.dataset.processes = String(procs.length);
	}

	async function detailLoop() {
		try {
			await detail();
		} catch (e) {
			showError(e.message);
		}
	}

	/* ---- wiring --------------------------------------------------------------- */

	function redraw() {
		for (const c of charts.values())
			c.plot && c.plot.destroy();
		charts.clear();
		document.getElementById("charts").replaceChildren();
		document.getElementById("reset-zoom").hidden = true;
		historyLoop();
		detailLoop();
	}

	function openGpu(target) {
		const cell = target.closest(".tile, .cell");
		if (!cell)
			return;
		if (cell.dataset.instance && node() === "*") {
			const p = hashParams();
			p.set("node", cell.dataset.instance);
			p.set("gpu", cell.dataset.gpu);
			location.hash = p.toString();
			return;
		}
		setHash("gpu", cell.dataset.gpu);
	}

	document.getElementById("tiles").addEventListener("click", (e) => openGpu(e.target));
	document.getElementById("heatmap").addEventListener("click", (e) => openGpu(e.target));
	document.getElementById("detail-close").addEventListener("click", (e) => {
		e.preventDefault();
		setHash("gpu", null);
	});
	document.getElementById("range").addEventListener("change", (e) => setHash("range", e.target.value));
	document.getElementById("refresh").addEventListener("change", (e) => setHash("refresh", e.target.value === "30" ? null : e.target.value));
	document.getElementById("node").addEventListener("change", (e) => {
		const p = hashParams();
		p.set("node", e.target.value);
		p.delete("gpu");
		p.delete("gpus");
		location.hash = p.toString();
	});
	document.getElementById("view").addEventListener("click", () => setHash("view", heatmapView() ? "tiles" : "heatmap"));
	document.getElementById("gpu-picker").addEventListener("change", () => {
		const on = [...document.querySelectorAll("#gpu-picker input")].filter((i) => i.checked).map((i) => i.value);
		setHash("gpus", on.length === gpusSeen.length || on.length === 0 ? null : on.join(","));
	});
	let shownNode = node();
	window.addEventListener("hashchange", () => {
		showEnd();
		if (node() !== shownNode) { /* another node's GPUs */
			shownNode = node();
			tiles.clear();
			document.getElementById("tiles").replaceChildren();
		}
		scheduleHistory();
		loop().then(sparkLoop);
		redraw();
	});
	document.getElementById("reset-zoom").addEventListener("click", redraw);
	document.getElementById("ended-live").addEventListener("click", () => {
		setHash("end", null);
	});

	/* Keys: ? help, r refresh, 1..7 ranges, h heat-map or tiles, Esc closes. */
	const keys = document.getElementById("keys");
	document.addEventListener("keydown", (e) => {
		if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName))
			return;
		const ranges = [...document.getElementById("range").options].map((o) => o.value);
		if (e.key === "?") {
			keys.hidden = !keys.hidden;
		} else if (e.key === "Escape") {
			if (!keys.hidden)
				keys.hidden = true;
			else
				setHash("gpu", null);
		} else if (e.key === "r") {
			loop();
			sparkLoop();
			historyLoop();
		} else if (e.key === "h") {
			setHash("view", heatmapView() ? "tiles" : "heatmap");
		} else if (/^[1-7]$/.test(e.key)) {
			setHash("range", ranges[Number(e.key) - 1]);
		} else {
			return;
		}
		e.preventDefault();
	});

	document.getElementById("keys-link").addEventListener("click", (e) => {
		e.preventDefault();
		keys.hidden = !keys.hidden;
	});
	document.getElementById("host").textContent = location.host;
	if (stored) /* serve has the query API and the page, no /metrics */
		document.querySelector("nav a[href='/metrics']").hidden = true;
	showEnd();
	(fleet ? nodes() : Promise.resolve()).catch((e) => showError(e.message)).then(() => {
		scheduleHistory();
		loop().then(sparkLoop);
		historyLoop();
		setTimeout(detailLoop, 500); /* after the first tiles */
		const live = (f) => () => fixedEnd() === null && f(); /* a view ending in the past does not change */
		setInterval(live(loop), REFRESH_MS);
		setInterval(live(detailLoop), SPARK_MS);
		setInterval(live(sparkLoop), SPARK_MS);
	});
})();
