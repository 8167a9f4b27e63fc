"""What a person reads: the xRR table (summary), the Report, its sentences (reading), its
figures (plotting), the HTML page, and the side-by-side agreement table."""
