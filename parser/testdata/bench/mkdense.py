# Builds parser/testdata/bench/phpbb3310_thread_dense.html from the real
# phpBB 3.3.10 page (testdata/real/phpbb3310_thread_p1.html): its chrome
# kept, its 10 posts cycled to 25 with new ids, and every post's content
# replaced by a markup-dense body as phpBB 3.3.10 renders it: several
# paragraphs with inline formatting and links, quotes nested three deep
# (with cites, votes inside), a code box, a spoiler, a list, struck text
# and votes.
#   python3 mkdense.py ../real/phpbb3310_thread_p1.html phpbb3310_thread_dense.html
import re, sys
src = open(sys.argv[1]).read()
starts = [m.start() for m in re.finditer(r'\t*<div id="p\d+" class="post ', src)]
end = src.index('<div class="action-bar bar-bottom">')
end = src.rindex('\n', 0, end)
head, tail = src[:starts[0]], src[end:]
posts = [src[a:b] for a, b in zip(starts, starts[1:] + [end])]
names = ["alice", "bob", "carol", "dave"]

def cite(who, pid, uid):
    return ('<cite><a href="./memberlist.php?mode=viewprofile&amp;u=%d">%s</a> wrote: '
            '<a href="./viewtopic.php?p=%d#p%d" data-post-id="%d" onclick="if(document.getElementById(hash.substr(1)))href=hash">\u2191</a>'
            '<span class="responsive-hide">Mon Nov 30, 2026 8:%02d pm</span></cite>') % (uid, who, pid, pid, pid, pid % 60)

def body(i, who, other, third):
    pid = 100 + i
    b = []
    for k in range(4):
        b.append('Paragraph %d from %s: the <em class="text-italics">timing</em> of the votes on day %d looked '
                 '<strong class="text-strong">coordinated</strong>, and <span style="text-decoration:underline">%s</span> '
                 'claimed far too late (see <a href="./viewtopic.php?p=%d#p%d" class="postlink-local">this post</a> and '
                 '<a href="https://example.com/notes/%d" class="postlink">my notes</a>).<br>\n' % (k, who, k + 1, other, pid - k, pid - k, k))
    b.append('<blockquote cite="./viewtopic.php?p=%d#p%d"><div>%s'
             'I am town, <strong class="text-strong">vote: %s</strong><br>\n'
             '<blockquote><div>%sNo, <strong class="text-strong">vote: %s</strong> is right.<br>\n'
             '<blockquote><div>%s<strong class="text-strong">VOTE: %s</strong> and <em class="text-italics">that is final</em>.</div></blockquote>'
             'Agreed with the above.</div></blockquote>'
             'Not convinced either way.</div></blockquote>\n' % (
                 pid - 1, pid - 1, cite(other, pid - 1, 60 + i % 4), who, cite(third, pid - 2, 61 + i % 4), third,
                 cite(who, pid - 3, 62 + i % 4), other))
    b.append('Still: <span style="text-decoration:line-through">maybe</span> <strong class="text-strong">VOTE: '
             '<span style="text-decoration:line-through">%s</span> %s</strong><br>\n' % (who, other))
    b.append('<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">Select all</a></p>'
             '<pre><code>[b]vote: %s[/b]\nday %d tally:\n  %s 3\n  %s 2\n  %s 1</code></pre></div>\n' % (third, i, other, who, third))
    b.append('<div class="spoiler"><div class="spoiler-header">Spoiler</div><div class="spoiler-body">my read on '
             '<strong class="text-strong">%s</strong>: <em class="text-italics">scum</em>, %d%% sure</div></div>\n' % (third, 60 + i))
    b.append('<ul><li>%s: <strong class="text-strong">suspicious</strong></li><li>%s: <em class="text-italics">null</em></li>'
             '<li>%s: town-leaning, <a href="./viewtopic.php?p=%d#p%d" class="postlink-local">reason</a></li></ul>\n' % (other, third, who, pid, pid))
    b.append('<span style="font-size:85%%;line-height:116%%">Day %d, posted from my phone.</span> '
             '<strong class="text-strong">TEAM: %s, %s</strong>' % (i, who, other))
    return ''.join(b)

out = [head]
for i in range(25):
    p = posts[i % len(posts)]
    old = re.search(r'id="p(\d+)"', p).group(1)
    new = str(100 + i)
    p = re.sub(r'\bp=%s\b' % old, 'p=' + new, p)
    p = re.sub(r'#p%s\b' % old, '#p' + new, p)
    p = p.replace('id="p%s"' % old, 'id="p%s"' % new).replace('profile%s"' % old, 'profile%s"' % new)
    p = p.replace('post_content%s"' % old, 'post_content%s"' % new).replace('/post/%s/' % old, '/post/%s/' % new)
    p = p.replace('data-post-id="%s"' % old, 'data-post-id="%s"' % new)
    who, other, third = names[i % 4], names[(i + 1) % 4], names[(i + 2) % 4]
    a = p.index('<div class="content">') + len('<div class="content">')
    z = p.index('</div>\n', a)
    # The real content may hold nested divs (quotes, code): cut at the
    # content div's own end, found by counting.
    depth, k = 1, a
    while depth:
        o, c = p.find('<div', k), p.find('</div>', k)
        if o != -1 and o < c:
            depth, k = depth + 1, o + 4
        else:
            depth, k = depth - 1, c + 6
    p = p[:a] + body(i, who, other, third) + p[k - 6:]
    out.append(p)
out.append(tail)
open(sys.argv[2], 'w').write(''.join(out))
