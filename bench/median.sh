# DOC: shared by the bench drivers (sourced). Run lines look like
# "SM key=value key=value ...", one per run, in the file $work/runs.

# median SM METRIC: median over the runs of one SM, NA if never measured.
median() {
	awk -v sm="$1" -v key="$2" '
	$1 == sm { for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == key && kv[2] != "NA") v[n++] = kv[2] + 0 } }
	END {
		if (!n) { print "NA"; exit }
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
		print m
	}' "$work/runs"
}
