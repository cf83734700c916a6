"""The UI-element detector, made here: synthetic GUI screens with exact boxes (`synth`, `data`), the network
(`model`), training with accelerate and ONNX export (`train`), and its scores (`evaluate`). Inference lives in
grounding.detector."""
