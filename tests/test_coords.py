"""Coordinate conversion between screen pixels and the spaces models speak, across monitors and HiDPI scales."""

from __future__ import annotations

import pytest

from deskpilot.core.coords import CoordinateSpace, smart_resize
from deskpilot.core.geometry import Box, Monitor, Point

RIGHT_MONITOR = Monitor(left=1920, top=0, width=1280, height=1024)
RETINA = Monitor(left=0, top=0, width=1440, height=900, scale=2.0)


@pytest.mark.parametrize("h, w, expected", [(1080, 1920, (1092, 1932)), (800, 1280, (812, 1288)),
                                            (2160, 3840, (2156, 3836)), (10, 10, (280, 280))])
def test_smart_resize_matches_qwen(h, w, expected):
    rh, rw = smart_resize(h, w)
    assert (rh, rw) == expected
    assert rh % 28 == 0 and rw % 28 == 0


def test_smart_resize_caps_pixels_of_huge_screens():
    h, w = smart_resize(4320, 7680)
    assert h * w <= 16384 * 28 * 28 and h % 28 == 0 and w % 28 == 0


def test_relative_grid_on_the_second_monitor():
    space = CoordinateSpace.for_model(RIGHT_MONITOR, "relative1000")
    assert space.to_screen(500, 500) == Point(1920 + 640, 512)
    assert space.from_screen(Point(1920 + 640, 512)) == (500, 500)


def test_resized_space_on_a_hidpi_monitor_lands_on_logical_pixels():
    space = CoordinateSpace.for_model(RETINA, "resized")
    assert space.image_size == tuple(reversed(smart_resize(1800, 2880)))
    w, h = space.image_size
    assert space.to_screen(w / 2, h / 2) == Point(720, 450)


def test_model_points_are_clamped_onto_the_monitor():
    space = CoordinateSpace.for_model(RIGHT_MONITOR, "relative1000")
    assert space.to_screen(1000, 1000) == Point(1920 + 1279, 1023)
    assert space.to_screen(-50, 0) == Point(1920, 0)


def test_screenshot_pixels_to_screen_points_with_scale_and_offset():
    monitor = Monitor(left=-1280, top=200, width=1280, height=800, scale=1.5)
    assert monitor.image_to_screen(0, 0) == Point(-1280, 200)
    assert monitor.image_to_screen(1920, 1200) == Point(0, 1000)
    assert monitor.screen_box_to_image(Box(-1280, 200, -1180, 300)) == Box(0, 0, 150, 150)
