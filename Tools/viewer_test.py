#!/usr/bin/env python3
"""The viewer of `waymark serve --pois` in a real browser (Chromium driven by Selenium).

  python3 Tools/viewer_test.py http://127.0.0.1:PORT SERVED.geojson WAYMARK_BINARY EDIT_TOKEN

SERVED.geojson is the file the server edits, EDIT_TOKEN the secret it was started with (the page
is opened with it in its link, as `waymark serve` prints it). Checks, in order: the page loads with
no console errors, takes the token out of its address, and shows every place; clicking a pin selects its row; clicking a row selects the pin and
opens its callout; the callout's car button draws a route from the place selected before, with
its steps (one row per instruction, with distance and time, in place of the places until the
back button), and a step selected in the list is highlighted on the map (and the other way round);
Save in the details editor
changes the file exactly as `waymark poi edit` does; Cancel leaves it byte for byte; a change made
to the file elsewhere makes Save say so and write nothing; on a narrow screen map and list are
tabs. Exit 0 when all hold; otherwise the
first failure on standard error and exit 1.
"""
import json
import shutil
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


def fail(message):
    print(f"viewer_test: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def main():
    base, served, waymark, token = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    options = Options()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,800"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    # The list is drawn again whenever the places change, so an element found can be replaced
    # before its text is read: that is "not yet", like an element not there yet.
    wait = WebDriverWait(driver, 20, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
    try:
        driver.get(base + "/#token=" + token)
        places = json.load(open(served))["features"]
        check("token" not in driver.current_url, "the edit token stays in the page's address")
        wait.until(lambda d: d.find_element(By.ID, "status").text == f"{len(places)} places")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#places li")) == len(places), "the list does not show every place")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#pins .pin, #pins .cluster"))
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#map img.base").get_attribute("src"))

        # Fit on open: every place is on the map (as pins or counted in clusters).
        def shown(d):
            return sum(int(c.get_attribute("data-count")) for c in d.find_elements(By.CSS_SELECTOR, "#pins .cluster")) \
                + len(d.find_elements(By.CSS_SELECTOR, "#pins .pin"))
        wait.until(lambda d: shown(d) == len(places))

        # A cluster zooms in; then a pin selects its row.
        clusters = driver.find_elements(By.CSS_SELECTOR, "#pins .cluster")
        zoom_before = driver.execute_script("return app.map.zoom")
        if clusters:
            clusters[0].click()
            wait.until(lambda d: d.execute_script("return app.map.zoom") > zoom_before)
        pin = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#pins .pin")))
        first = pin.get_attribute("data-id")
        pin.click()
        wait.until(lambda d: "selected" in d.find_element(By.CSS_SELECTOR, f'#places li[data-id="{first}"]').get_attribute("class"))
        check(driver.find_element(By.ID, "callout").is_displayed(), "selecting a pin does not open its callout")

        # A row selects its pin and opens its callout.
        second = next(str(f["id"]) for f in places if str(f["id"]) != first)
        driver.find_element(By.CSS_SELECTOR, f'#places li[data-id="{second}"]').click()
        title = next(f["properties"].get("title", "") for f in places if str(f["id"]) == second)
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#callout .title").text == title)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#pins .pin.selected[data-id="{second}"]'))
        check("selected" in driver.find_element(By.CSS_SELECTOR, f'#places li[data-id="{second}"]').get_attribute("class"), "the row is not selected")
        check("selected" not in driver.find_element(By.CSS_SELECTOR, f'#places li[data-id="{first}"]').get_attribute("class"),
              "the previous row is still selected")

        # Directions from the place selected before, asked at street level (zoom 18: the route
        # does not fit until the view is fitted to it).
        driver.execute_script("const p = app.places.get(app.selected); app.map.setView({lat: p.lat, lon: p.lon}, 18)")
        driver.find_element(By.CSS_SELECTOR, "#callout .directions").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "svg.overlay #route-line"))
        steps = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#steps li[data-step]"))
        check(len(steps) >= 2, "the route has fewer than two steps")
        # The whole route is in view after directions (fitted by the server's /fit).
        def route_in_view(d):
            return d.execute_script("""
                const m = app.map, { w, h } = m.size;
                return app.route && app.route.geometry.coordinates.every(([lon, lat]) => {
                  const p = m.project(lat, lon); return p.x >= 0 && p.y >= 0 && p.x <= w && p.y <= h; });""")
        wait.until(route_in_view)
        check(steps[-1].text.startswith("You have arrived"), f"the last step reads {steps[-1].text!r}")
        steps[1].click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'svg.overlay circle.highlighted[data-step="1"]'))
        check("selected" in driver.find_element(By.CSS_SELECTOR, '#steps li[data-step="1"]').get_attribute("class"), "the step is not selected in the list")
        # And the other way round: a maneuver on the map selects its step.
        driver.execute_script("document.querySelector('svg.overlay circle[data-step=\"0\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))")
        wait.until(lambda d: "selected" in d.find_element(By.CSS_SELECTOR, '#steps li[data-step="0"]').get_attribute("class"))
        # One row per instruction, as the command line prints them (a roundabout's exit in its
        # entry's row), each with its distance and time; the rows stand in for the places.
        texts = [li.text for li in steps]
        check(not any(t.startswith("Exit the roundabout") for t in texts), f"a roundabout told twice: {texts}")
        check(all(" · " in t for t in texts[:-1]), f"a row without its distance and time: {texts}")
        check(not driver.find_element(By.ID, "places").is_displayed(), "the places still show beside the route")
        # The back button returns to the places.
        driver.find_element(By.CSS_SELECTOR, "#steps .back").click()
        wait.until(lambda d: d.find_element(By.ID, "places").is_displayed())
        check(not driver.find_element(By.ID, "steps").is_displayed() and not driver.execute_script("return app.route"),
              "the route stays after going back")

        # With a walking map beside the car's, the mode switch routes the same ends on foot.
        mode = driver.find_element(By.ID, "mode")
        check(mode.is_displayed(), "no mode switch, with a car map and a walking map served")
        church = next(str(f["id"]) for f in places if f["properties"].get("title") == "St Mary's Church")
        swan = next(str(f["id"]) for f in places if f["properties"].get("title") == "The Swan")
        for place in (church, swan):
            driver.find_element(By.CSS_SELECTOR, f'#places li[data-id="{place}"]').click()
            wait.until(lambda d: d.find_element(By.ID, "callout").is_displayed())
        driver.execute_script("app.route = null")
        driver.find_element(By.CSS_SELECTOR, "#callout .directions").click()
        duration = lambda d: d.execute_script("return app.route ? app.route.duration : null")
        by_car = wait.until(duration)
        Select(mode).select_by_value("walking")
        on_foot = wait.until(lambda d: duration(d) if duration(d) != by_car else None)
        status = driver.find_element(By.ID, "status").text
        check(on_foot > 2 * by_car and status.startswith("Route:") and status.endswith(" min"),
              f"walking takes {on_foot} s ({status!r}), driving {by_car} s")
        # And by bicycle, when a cycling map is served too: slower than driving, faster than walking.
        if "cycling" in [o.get_attribute("value") for o in Select(mode).options]:
            Select(mode).select_by_value("cycling")
            by_bike = wait.until(lambda d: duration(d) if duration(d) not in (by_car, on_foot) else None)
            check(by_car < by_bike < on_foot, f"cycling takes {by_bike} s, driving {by_car} s, walking {on_foot} s")
        Select(mode).select_by_value("driving")
        wait.until(lambda d: duration(d) == by_car)
        driver.find_element(By.CSS_SELECTOR, "#steps .back").click()

        # Cancel changes nothing.
        before = open(served, "rb").read()
        driver.find_element(By.CSS_SELECTOR, f'#places li[data-id="{second}"]').click()
        wait.until(lambda d: d.find_element(By.ID, "callout").is_displayed())
        driver.find_element(By.CSS_SELECTOR, "#callout .details").click()
        field = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor input[name=title]")))
        check(driver.find_element(By.CSS_SELECTOR, "#editor input[name=coordinate]").get_attribute("readonly") is not None,
              "the coordinate is editable")
        field.clear()
        field.send_keys("Not this")
        driver.find_element(By.ID, "cancel").click()
        wait.until(EC.invisibility_of_element_located((By.ID, "editor")))
        check(open(served, "rb").read() == before, "Cancel changed the file")

        # Save writes what `waymark poi edit` writes.
        expected_dir = tempfile.mkdtemp()
        expected = expected_dir + "/expected.geojson"
        shutil.copy(served, expected)
        subprocess.run([waymark, "poi", "edit", expected, "--id", second, "--title", "The New Name", "--subtitle", "Edited in the browser"],
                       check=True, capture_output=True)
        driver.find_element(By.CSS_SELECTOR, "#callout .details").click()
        field = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor input[name=title]")))
        field.clear()
        field.send_keys("The New Name")
        subtitle = driver.find_element(By.CSS_SELECTOR, "#editor input[name=subtitle]")
        subtitle.clear()
        subtitle.send_keys("Edited in the browser")
        driver.find_element(By.ID, "save").click()
        wait.until(EC.invisibility_of_element_located((By.ID, "editor")))
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'#places li[data-id="{second}"] .title').text == "The New Name")
        check(open(served, "rb").read() == open(expected, "rb").read(), "Save did not write what 'waymark poi edit' writes")

        # A change elsewhere: Save says so and writes nothing.
        subprocess.run([waymark, "poi", "edit", served, "--id", first, "--subtitle", "Changed elsewhere"], check=True, capture_output=True)
        changed = open(served, "rb").read()
        driver.find_element(By.CSS_SELECTOR, "#callout .details").click()
        field = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#editor input[name=title]")))
        field.clear()
        field.send_keys("Too late")
        driver.find_element(By.ID, "save").click()
        wait.until(lambda d: "changed elsewhere" in d.find_element(By.ID, "editor-message").text)
        check(open(served, "rb").read() == changed, "a conflicting Save wrote the file")
        driver.find_element(By.ID, "cancel").click()
        wait.until(EC.invisibility_of_element_located((By.ID, "editor")))

        # A narrow screen: map and list are tabs; a row chosen in the list shows the map with its callout.
        driver.set_window_size(480, 800)
        wait.until(lambda d: d.find_element(By.ID, "tabs").is_displayed())
        driver.find_element(By.ID, "tab-list").click()
        wait.until(lambda d: not d.find_element(By.ID, "map").is_displayed() and d.find_element(By.ID, "places").is_displayed())
        driver.find_element(By.CSS_SELECTOR, f'#places li[data-id="{first}"]').click()
        wait.until(lambda d: d.find_element(By.ID, "map").is_displayed() and not d.find_element(By.ID, "places").is_displayed())
        wait.until(lambda d: d.find_element(By.ID, "callout").is_displayed())

        # No errors in the console at any point.
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and "412" not in entry["message"]]
        check(not errors, f"console errors: {errors}")
    finally:
        driver.quit()
    print("viewer_test: all checks passed")


if __name__ == "__main__":
    main()
