"""deskpilot's own text-line recogniser: line crops from real screens read by PP-OCR plus synthetic lines -> a small
CTC network -> ONNX for grounding.text_recognizer."""
