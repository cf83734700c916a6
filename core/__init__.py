"""deskpilot's shared vocabulary (Action, Observation, Element, Episode) and its machine interface
(Screen, Controller, Safety). Everything else in deskpilot builds on these; this package imports none of them."""
