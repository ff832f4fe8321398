// What makes a page read badly at the viewport's width besides its being wider than the screen,
// one line per problem, at most 20. Chromium.Widths runs it at 1280 and 390 px; it is plain
// JavaScript evaluated in the page, so that it can be run by hand too.
(() => {
	const out = [];
	const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
		(typeof e.className === "string" && e.className.trim() ? "." + e.className.trim().split(/\s+/).join(".") : "");
	const text = e => (e.textContent || "").replace(/\s+/g, " ").trim().slice(0, 30);
	const shown = e => { const r = e.getBoundingClientRect(); return (r.width > 0 || r.height > 0) && getComputedStyle(e).visibility !== "hidden"; };

	// A box that scrolls sideways shows that it does: the shadow at the edge with more to see that
	// .scroll draws (gradients attached to the content and to the box). Code blocks are left to
	// their scroll bars.
	for (const box of document.querySelectorAll("body *")) {
		const s = getComputedStyle(box);
		if (!/auto|scroll/.test(s.overflowX) || box.scrollWidth <= box.clientWidth + 1 || /^(PRE|TEXTAREA|SELECT)$/.test(box.tagName) || !shown(box)) continue;
		if (!s.backgroundAttachment.includes("local") || !s.backgroundImage.includes("gradient"))
			out.push(`${name(box)} scrolls ${box.scrollWidth - box.clientWidth} px sideways without showing it: ${text(box)}`);
	}

	// A wide table keeps its label column in place as it scrolls; at its start, its first column
	// of figures shows whole beside the labels.
	for (const t of document.querySelectorAll("table.wide")) {
		const box = t.closest(".scroll"), row = t.tBodies[0] && t.tBodies[0].rows[0];
		if (!box || !row || row.cells.length < 2 || !shown(t)) continue;
		const b = box.getBoundingClientRect(), cell = row.cells[1].getBoundingClientRect();
		const right = cell.right - b.left + box.scrollLeft;
		if (right > box.clientWidth + 1)
			out.push(`${name(t)}: its first column of figures ends at ${Math.round(right)} px of a ${box.clientWidth} px box (labels ${Math.round(row.cells[0].getBoundingClientRect().width)} px wide)`);
	}

	// A short cell or a field's label is on one line (or on as many as its line breaks make, 値 over
	// its unit): no 35 未 / 満, no 指 / 標.
	const lines = e => {
		const size = parseFloat(getComputedStyle(e).fontSize), mids = [];
		const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			const range = document.createRange(); range.selectNodeContents(n);
			for (const q of range.getClientRects()) if (q.width > 0) mids.push((q.top + q.bottom) / 2);
		}
		mids.sort((a, b) => a - b);
		return mids.filter((m, i) => i === 0 || m - mids[i - 1] > size * .6).length;
	};
	for (const e of document.querySelectorAll("th, td, label")) {
		const t = e.textContent.replace(/\s+/g, "");
		if (t.length < 2 || t.length > 6 || !shown(e)) continue;
		const n = lines(e);
		if (n > 1 + e.querySelectorAll("br").length) out.push(`${name(e)} "${t}" broken onto ${n} lines`);
	}

	// A chart's text lies inside the chart: an inline SVG clips what reaches past its box. The
	// box around the text is its font's (ascent and descent), a little taller than the glyphs.
	for (const svg of document.querySelectorAll("svg")) {
		if (svg.parentElement.closest("svg") || !shown(svg)) continue;
		const r = svg.getBoundingClientRect();
		for (const t of svg.querySelectorAll("text")) {
			const q = t.getBoundingClientRect();
			if (!q.width) continue;
			const by = Math.max(r.left - q.left, q.right - r.right, r.top - q.top, q.bottom - r.bottom);
			if (by > 1) out.push(`${name(svg)}: "${text(t)}" cut by the chart's edge (${Math.round(by)} px)`);
		}
	}

	// What is tapped is big enough: a check box or a radio button at least 24 × 24 px (WCAG 2.2,
	// target size).
	for (const e of document.querySelectorAll("input[type=checkbox], input[type=radio]")) {
		if (!shown(e)) continue;
		const r = e.getBoundingClientRect();
		if (r.width < 23.5 || r.height < 23.5) out.push(`${name(e)} ${e.getAttribute("aria-label") || e.name}: ${Math.round(r.width)} × ${Math.round(r.height)} px to tap`);
	}

	// A mark's outline leaves its colour to be seen: a dot's painted outline is thinner than its
	// radius, and a map's shape keeps more than half of itself under its outline (the outline's
	// inner half: its length times half its width, against the area the path's rings enclose).
	const painted = s => s.stroke !== "none" && !/^rgba\(.*,\s*0\)$/.test(s.stroke) && parseFloat(s.strokeOpacity) > 0 && parseFloat(s.strokeWidth) > 0;
	let dots = 0;
	for (const c of document.querySelectorAll("svg circle")) {
		const s = getComputedStyle(c);
		if (painted(s) && parseFloat(s.strokeWidth) >= c.r.baseVal.value && shown(c) && dots++ < 3)
			out.push(`${name(c.ownerSVGElement)}: a dot of radius ${c.r.baseVal.value} under a ${s.strokeWidth} ${s.stroke} outline (${text(c)})`);
	}
	const area = d => { // the path data the maps write: M x y, l and relative pairs, z
		let sum = 0;
		for (const ring of d.split("M").slice(1)) {
			const n = ring.match(/-?\d+(\.\d+)?/g).map(Number);
			let x = n[0], y = n[1], a = 0;
			const x0 = x, y0 = y;
			for (let k = 2; k + 1 < n.length; k += 2) { const nx = x + n[k], ny = y + n[k + 1]; a += x * ny - nx * y; x = nx; y = ny; }
			a += x * y0 - x0 * y;
			sum += Math.abs(a) / 2;
		}
		return sum;
	};
	let shapes = 0;
	for (const p of document.querySelectorAll("svg.map path[d^=M]")) {
		if (p.closest("pattern")) continue;
		const s = getComputedStyle(p);
		if (!painted(s) || s.fill === "none") continue;
		const a = area(p.getAttribute("d")), covered = p.getTotalLength() * parseFloat(s.strokeWidth) / 2;
		if (covered > a / 2 && shown(p) && shapes++ < 3)
			out.push(`${name(p.ownerSVGElement)}: a shape of ${a} units² under a ${s.strokeWidth} ${s.stroke} outline covering ${Math.round(covered)} (${text(p.closest("a") || p)})`);
	}
	if (dots > 3 || shapes > 3) out.push(`and ${Math.max(dots - 3, 0)} more dots and ${Math.max(shapes - 3, 0)} more shapes`);
	return out.slice(0, 20);
})()
