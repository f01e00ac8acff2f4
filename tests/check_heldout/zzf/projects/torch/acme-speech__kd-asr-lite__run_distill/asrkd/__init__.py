"""KWS-lite: distilling a keyword-spotting teacher into an on-device student."""
