# bench/nexmark/chart.gp - bench/run-nexmark's chart: CPU seconds per million
# events (steady: less the empty-input run) per query, one bar per peer (log
# scale: the peers differ by an order of magnitude).  The data file's first
# line names the peers; ncol is its number of columns.
# usage: gnuplot -e "datafile='X.dat'; outfile='X.png'; ncol=4" bench/nexmark/chart.gp
set terminal pngcairo size 1200,520 font ",10" noenhanced
set output outfile
set title "Nexmark: CPU seconds per million events, steady (lower is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set ylabel "CPU s / M events (log scale)"
set grid ytics
set key top left autotitle columnheader
set datafile missing "NaN"
colors = "#2a7ab9 #d9822b #5a9e4b"
plot for [i=2:ncol] datafile using i:xtic(1) lc rgb word(colors, i - 1)
